#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "serving/cache_export.hpp"

namespace hone::cli {

namespace {

struct ExportArgs {
  std::string db = "hone.db", out;
};

int run_export(const ExportArgs& a) {
  if (!std::filesystem::exists(a.db)) throw InputError(a.db + ": no such database");
  KnowledgeDb db(a.db);
  ExportSummary s = export_kernel_cache(db, a.out);
  std::cout << fmt::format("wrote {} entries ({} files) to {}\n", s.entries, s.files, (std::filesystem::path(a.out) / "manifest.json").string());
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write the winners as a kernel cache directory for serving engines");
  cmd->add_option("--db", a->db, "SQLite database")->capture_default_str();
  cmd->add_option("--out", a->out, "cache directory to write")->required();
  cmd->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace hone::cli
