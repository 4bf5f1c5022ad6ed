#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/existing_db.hpp"
#include "core/input_error.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "serving/cache_export.hpp"
#include "serving/kernel_launcher_export.hpp"
#include "serving/kernel_tuner_cache_export.hpp"
#include "serving/kernel_tuner_export.hpp"

namespace hone::cli {

namespace {

struct ExportArgs {
  std::string db = "hone.db", out, format = "hone";
};

int run_export(const ExportArgs& a) {
  const auto db = open_existing_db(a.db);
  if (a.format == "kernel-tuner") {
    FormatExportSummary s = export_kernel_tuner(*db, a.out);
    std::cout << fmt::format("wrote {} results in {} Kernel Tuner T4 files to {}\n", s.records, s.files, a.out);
  } else if (a.format == "kernel-tuner-cache") {
    FormatExportSummary s = export_kernel_tuner_cache(*db, a.out);
    std::cout << fmt::format("wrote {} configurations in {} Kernel Tuner cache files to {}\n", s.records, s.files, a.out);
  } else if (a.format == "kernel-launcher") {
    FormatExportSummary s = export_kernel_launcher(*db, a.out);
    std::cout << fmt::format("wrote {} records in {} kernel_launcher wisdom files to {}\n", s.records, s.files, a.out);
  } else {
    ExportSummary s = export_kernel_cache(*db, a.out);
    std::cout << fmt::format("wrote {} entries ({} files) to {}\n", s.entries, s.files, (std::filesystem::path(a.out) / "manifest.json").string());
  }
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Write the winners as a kernel cache directory for serving engines, or the results "
                                           "for Kernel Tuner or kernel_launcher");
  cmd->add_option("--db", a->db, "SQLite database")->capture_default_str();
  cmd->add_option("--out", a->out, "directory to write")->required();
  cmd->add_option("--format", a->format,
                  "hone (the kernel cache, serving/FORMAT.md), kernel-tuner (T4 results), kernel-tuner-cache (Kernel Tuner "
                  "cache files, one per task and variant: what hone replay reads) or kernel-launcher (wisdom files)")
      ->check(CLI::IsMember({"hone", "kernel-tuner", "kernel-tuner-cache", "kernel-launcher"}))
      ->capture_default_str();
  cmd->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace hone::cli
