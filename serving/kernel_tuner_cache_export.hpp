#pragma once
// `hone export --format kernel-tuner-cache`: the search's evaluations as Kernel Tuner cache
// files, the format `hone replay` reads and bench/replay measures strategies on. A cache file is
// one kernel's space, so there is one file per task, device and variant (the variants of a family
// have different parameters): <op>_<static dims>_<bucket>_<arch>_<device>_<variant>.json. A
// configuration that passed holds its median time in ms; one that failed holds Kernel Tuner's
// marker for why (CompilationFailedConfig, InvalidConfig, RuntimeFailedConfig). A job run with
// `--strategy exhaustive` and a budget of the whole space records the complete space.
#include <filesystem>

#include "knowledge_db/knowledge_db.hpp"
#include "serving/kernel_tuner_export.hpp"

namespace hone {

/// Kernel Tuner's failure marker for a result that did not pass.
std::string kernel_tuner_failure(const ResultRecord& r);

/// Writes the directory atomically (refusing to replace anything but an earlier export of this
/// format). Throws InputError when the database holds no template evaluations.
FormatExportSummary export_kernel_tuner_cache(const KnowledgeDb& db, const std::filesystem::path& out_dir);

}  // namespace hone
