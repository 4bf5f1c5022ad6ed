#pragma once
// `hone db merge`: shards tuned on different machines become one database. Tasks, candidates,
// op specs and devices are matched by key; results are appended (a result already present,
// same task, candidate, device, time and timestamp, is not added twice, so merging a shard
// again changes nothing); the winner of each (task, device) is the faster; lessons come along
// with their evidence and vectors.
#include <filesystem>
#include <string>
#include <vector>

namespace hone {

struct MergeReport {
  int sources = 0;
  int tasks = 0, candidates = 0, compiles = 0, results = 0, winners = 0, lessons = 0;  // rows added or replaced
  std::string summary() const;
};

/// Merges `sources` into `into` (created when missing). The sources are only read: each is
/// copied to a snapshot that is migrated to this hone's schema. Every source is checked before
/// `into` is touched; each source then goes in one transaction. Throws DbError for a source or
/// target that is not a usable hone database, InputError when `into` is also a source.
MergeReport merge_databases(const std::vector<std::filesystem::path>& sources, const std::filesystem::path& into);

}  // namespace hone
