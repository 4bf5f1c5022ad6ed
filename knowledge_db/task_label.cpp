#include "knowledge_db/task_label.hpp"

#include <cstdint>

namespace hone {

std::string task_label(const TaskRecord& task) {
  std::string s = task.op;
  for (const auto& [k, v] : task.static_dims.items()) s += " " + k + "=" + v.dump();
  for (const auto& [k, b] : task.buckets.items()) {
    const auto lo = b.at(0).get<std::int64_t>(), hi = b.at(1).get<std::int64_t>();
    s += " " + k + "=" + (lo == hi ? std::to_string(hi) : std::to_string(lo) + ".." + std::to_string(hi));
  }
  return s;
}

}  // namespace hone
