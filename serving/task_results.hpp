#pragma once
// What a tuning job left in the database for one task, as the exports and the report read it:
// its name (knowledge_db/task_label.hpp), the devices it ran on, and the search's evaluations in the order they ran.
#include <cstdint>
#include <string>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"
#include "knowledge_db/task_label.hpp"

namespace hone {

/// "rmsnorm_hidden256_tokens1-2_sm_90": the label as a file name.
std::string task_file_stem(const TaskRecord& task);

/// Letters, digits, '-', '_' and '.' kept, anything else '_'.
std::string file_name_safe(const std::string& text);

struct TaskEvaluation {
  ResultRecord result;
  CandidateRecord candidate;
};

/// The search's evaluations of `task_id` on `device`, oldest first: every candidate but the
/// op's reference, without the winner's re-timing in turns with the reference (that repeats a
/// candidate already counted).
std::vector<TaskEvaluation> task_evaluations(const KnowledgeDb& db, std::int64_t task_id, const std::string& device);

/// The devices with results for `task_id`, in the order they first appear.
std::vector<std::string> task_devices(const KnowledgeDb& db, std::int64_t task_id);

}  // namespace hone
