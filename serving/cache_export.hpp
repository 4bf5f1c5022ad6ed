#pragma once
// `hone export`: the winners of a database written as a kernel cache directory that a serving
// engine loads at start-up: manifest.json and the kernel files it names (see FORMAT.md).
#include <filesystem>
#include <string>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {

inline constexpr int kCacheFormatVersion = 1;

struct ExportSummary {
  std::size_t entries = 0;
  std::size_t files = 0;
};

/// Writes the cache to `out_dir` atomically: it is built beside the target and renamed into
/// place, so readers see the old cache or the new one, never half of one. An existing `out_dir`
/// is replaced only when it is itself a hone kernel cache (or empty); anything else is refused
/// with an InputError. Throws InputError when the database holds no winners.
ExportSummary export_kernel_cache(const KnowledgeDb& db, const std::filesystem::path& out_dir);

}  // namespace hone
