#pragma once
// `hone export --format kernel-launcher`: hone's passing results as kernel_launcher's wisdom
// files (version "1.0"), so an application that launches its kernels through kernel_launcher
// picks hone's best configuration for its device and problem size.
//
// A wisdom file holds one tuning key: a header line {"version", "objective": "time",
// "tunable_parameters", "key"} and one JSON line per measured configuration {"config" (values
// in tunable_parameters' order), "problem_size" [x, y, z], "time", "environment" {"date",
// "device_name", "compute_capability", ...}}. hone writes one key per op family, static shape
// and template variant, "<variant>_<dim><value>...", in "<key>.wisdom"; the problem size is the
// dynamic dims at the bucket's upper bound (what the task was tuned at), in the op's symbol
// order, padded with 1. kernel_launcher matches device_name exactly, so results measured on emu
// (a CPU's name) never pass for a GPU's; environment.hone_timer says "cpu" for them as well.
#include <filesystem>

#include "knowledge_db/knowledge_db.hpp"
#include "serving/kernel_tuner_export.hpp"

namespace hone {

inline constexpr const char* kWisdomVersion = "1.0";

/// Writes the directory atomically (refusing to replace anything but an earlier export of this
/// format). Throws InputError when the database holds no passing timed results.
FormatExportSummary export_kernel_launcher(const KnowledgeDb& db, const std::filesystem::path& out_dir);

}  // namespace hone
