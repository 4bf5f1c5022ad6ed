// `hone db check|merge`: the database as a file: is it whole, and shards into one.
#include <iostream>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/db_check.hpp"
#include "knowledge_db/db_merge.hpp"

namespace hone::cli {

namespace {

struct DbArgs {
  std::string db = "hone.db", into;
  std::vector<std::string> sources;
};

int run_check(const DbArgs& a) {
  DbCheckReport r = check_database(a.db);
  for (const auto& n : r.notes) std::cout << a.db << ": note: " << n << "\n";
  for (const auto& p : r.problems) std::cout << a.db << ": " << p << "\n";
  if (r.ok()) std::cout << a.db << ": ok (schema version " << r.version << ")\n";
  else std::cout << a.db << ": " << r.problems.size() << " problems found\n";
  return r.ok() ? 0 : 1;
}

int run_merge(const DbArgs& a) {
  std::vector<std::filesystem::path> sources(a.sources.begin(), a.sources.end());
  MergeReport r = merge_databases(sources, a.into);
  std::cout << a.into << ": " << r.summary() << "\n";
  return 0;
}

}  // namespace

void add_db_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<DbArgs>();
  auto* cmd = app.add_subcommand("db", "Check a database, or merge shards tuned on different machines");
  cmd->require_subcommand(1);

  auto* check = cmd->add_subcommand("check", "integrity, schema version, foreign keys and orphan rows; exit 1 on problems");
  check->add_option("--db", a->db, "SQLite database")->capture_default_str();
  check->callback([a, &action] { action = [a] { return run_check(*a); }; });

  auto* merge = cmd->add_subcommand("merge", "Merge databases into one: results appended, the faster winner kept");
  merge->add_option("sources", a->sources, "databases to merge (only read)")->required();
  merge->add_option("--into", a->into, "the database to merge into (created when missing)")->required();
  merge->callback([a, &action] { action = [a] { return run_merge(*a); }; });
}

}  // namespace hone::cli
