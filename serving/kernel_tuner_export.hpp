#pragma once
// `hone export --format kernel-tuner`: every evaluation of every task written as Kernel Tuner's
// T4 results (the "Open Autotuning Results" schema, version 1.0.0: schema_version and results,
// each with timestamp, configuration, objectives, times, invalidity, correctness and
// measurements), so tools that read Kernel Tuner's output can read hone's. One file per task and
// device: <op>_<static dims>_<bucket>_<arch>_<device>.json.
#include <filesystem>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {

inline constexpr const char* kT4SchemaVersion = "1.0.0";

struct FormatExportSummary {
  std::size_t files = 0;
  std::size_t records = 0;
};

/// T4's invalidity for a result: "correct" when it passed; "compile" or "constraints" (resource
/// limits) at the static stage; "correctness" at the reference, hidden and consistency stages;
/// "timeout" for a kernel that hung; "runtime" for a crash, a fault or an impossible time.
std::string t4_invalidity(const ResultRecord& r);

/// Writes the directory atomically (refusing to replace anything but an earlier export of this
/// format). Throws InputError when the database holds no results.
FormatExportSummary export_kernel_tuner(const KnowledgeDb& db, const std::filesystem::path& out_dir);

}  // namespace hone
