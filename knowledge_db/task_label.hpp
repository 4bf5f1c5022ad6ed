#pragma once
// A stored task's name as `hone tune` prints it: "rmsnorm hidden=4096 tokens=3..4".
#include <string>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {

std::string task_label(const TaskRecord& task);

}  // namespace hone
