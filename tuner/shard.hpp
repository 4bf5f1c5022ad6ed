#pragma once
// Splitting a job across machines: shard i of n takes every n-th task, from i, of the job's fixed
// task order, so n machines (a Slurm job array, a Kubernetes Indexed Job) cover every task once.
#include <cstddef>
#include <string>
#include <vector>

namespace hone {

struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;

  bool takes(std::size_t task_index) const { return task_index % count == index; }
};

/// Parses "i/n" with 0 <= i < n; throws InputError otherwise.
Shard parse_shard(const std::string& text);

}  // namespace hone
