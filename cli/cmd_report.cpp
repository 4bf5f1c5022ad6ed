#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/existing_db.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "report/html_report.hpp"

namespace hone::cli {

namespace {

struct ReportArgs {
  std::string db = "hone.db", out = "report.html";
  ReportOptions options;
};

int run_report(const ReportArgs& a) {
  const auto db = open_existing_db(a.db);
  const std::size_t sections = write_html_report(*db, a.out, a.options);
  std::cout << fmt::format("wrote {} ({} task sections)\n", a.out, sections);
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write one self-contained HTML page about a database: search progress, winners against "
                                           "baseline and roofline, verdicts by stage, lessons");
  cmd->add_option("--db", a->db, "SQLite database")->capture_default_str();
  cmd->add_option("--out", a->out, "HTML file to write")->capture_default_str();
  cmd->add_option("--title", a->options.title, "page title")->capture_default_str();
  cmd->add_option("--bandwidth-gbs", a->options.bandwidth_gbs,
                  "the GPU's memory bandwidth, for the roofline floor (default: what the job recorded for the device)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--peak-gflops", a->options.peak_gflops,
                  "the GPU's peak arithmetic rate, for the roofline floor (default: what the job recorded)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([a, &action] { action = [a] { return run_report(*a); }; });
}

}  // namespace hone::cli
