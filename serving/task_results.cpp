#include "serving/task_results.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <map>

namespace hone {

std::string file_name_safe(const std::string& text) {
  std::string s = text;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return s;
}

std::string task_file_stem(const TaskRecord& task) {
  std::string s = task.op;
  for (const auto& [k, v] : task.static_dims.items()) s += "_" + k + v.dump();
  for (const auto& [k, b] : task.buckets.items()) s += "_" + k + b.at(0).dump() + "-" + b.at(1).dump();
  return file_name_safe(s + "_" + task.arch);
}

std::vector<TaskEvaluation> task_evaluations(const KnowledgeDb& db, std::int64_t task_id, const std::string& device) {
  std::map<std::int64_t, std::optional<CandidateRecord>> candidates;
  std::vector<TaskEvaluation> out;
  auto results = db.results_for_task(task_id);
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const auto& r : results) {
    if (r.device != device || r.is_retiming()) continue;
    auto it = candidates.find(r.candidate_id);
    if (it == candidates.end()) it = candidates.emplace(r.candidate_id, db.candidate(r.candidate_id)).first;
    if (!it->second || it->second->origin == "reference") continue;
    out.push_back({r, *it->second});
  }
  return out;
}

std::vector<std::string> task_devices(const KnowledgeDb& db, std::int64_t task_id) {
  std::vector<std::string> out;
  auto results = db.results_for_task(task_id);
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const auto& r : results)
    if (std::find(out.begin(), out.end(), r.device) == out.end()) out.push_back(r.device);
  return out;
}

}  // namespace hone
