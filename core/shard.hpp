#pragma once
// Splitting a job across machines: shard i of n takes every n-th item, from i, of the job's fixed
// order (a tuning job's tasks, a kernel cache's entries for the gate), so n machines (a Slurm job
// array, a Kubernetes Indexed Job, a CI matrix) cover every item once.
#include <cstddef>
#include <string>
#include <vector>

namespace hone {

struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;

  bool takes(std::size_t task_index) const { return task_index % count == index; }
};

/// Parses "i/n" with 0 <= i < n; throws InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);

}  // namespace hone
