#include "tuner/llm/llm_attempt_report.hpp"

#include <algorithm>

#include "knowledge_db/task_label.hpp"

namespace hone {

namespace {

LlmAttemptView view_of(const KnowledgeDb& db, const TaskRecord& task, LlmAttemptRecord a) {
  LlmAttemptView v;
  v.task = task_label(task);
  for (std::int64_t id : a.lessons_used)
    if (auto l = db.lesson(id)) v.lessons.push_back(*l);
  const auto results = db.results_for_task(task.id);
  for (std::int64_t id : a.candidate_ids) {
    LlmCandidateOutcome o;
    o.candidate_id = id;
    if (auto c = db.candidate(id)) {
      o.entry = c->entry;
      o.params = c->params;
    }
    // The candidate's evaluation in this task: the first result, not a later re-timing.
    for (const auto& r : results)
      if (r.candidate_id == id && !r.is_retiming()) {
        o.verdict = r.verdict;
        o.stage = r.stage;
        o.reason = r.reason;
        o.time_ms = r.time_ms;
        break;
      }
    v.candidates.push_back(std::move(o));
  }
  v.attempt = std::move(a);
  return v;
}

}  // namespace

nlohmann::json LlmAttemptView::to_json() const {
  const LlmAttemptRecord& a = attempt;
  nlohmann::json lessons_json = nlohmann::json::array();
  for (const auto& l : lessons)
    lessons_json.push_back({{"id", l.id}, {"situation", l.situation}, {"action", l.action}, {"tags", l.tags}});
  nlohmann::json candidates_json = nlohmann::json::array();
  for (const auto& c : candidates)
    candidates_json.push_back({{"candidate_id", c.candidate_id}, {"entry", c.entry},   {"params", c.params},
                               {"verdict", c.verdict},           {"stage", c.stage},   {"reason", c.reason},
                               {"time_ms", c.time_ms}});
  return {{"id", a.id},
          {"task", task},
          {"task_id", a.task_id},
          {"attempt", a.attempt},
          {"model", a.model},
          {"parent_id", a.parent_id},
          {"outcome", a.outcome},
          {"reason", a.reason},
          {"finish_reason", a.finish_reason},
          {"requests", a.requests},
          {"prompt_tokens", a.prompt_tokens},
          {"completion_tokens", a.completion_tokens},
          {"latency_ms", a.latency_ms},
          {"lessons_used", a.lessons_used},
          {"lessons", lessons_json},
          {"lesson_id", a.lesson_id},
          {"lesson_note", a.lesson_note},
          {"candidates", candidates_json},
          {"prompt", a.prompt},
          {"reply", a.reply},
          {"created_at", a.created_at}};
}

std::string LlmAttemptView::prompt_text() const {
  std::string s;
  if (!attempt.prompt.is_array()) return s;
  for (const auto& m : attempt.prompt) {
    const std::string content = m.value("content", "");
    s += "--- " + m.value("role", "?") + " ---\n" + content + (content.empty() || content.back() == '\n' ? "" : "\n");
  }
  return s;
}

std::vector<LlmAttemptView> llm_attempt_views(const KnowledgeDb& db, const std::string& filter) {
  std::vector<LlmAttemptView> out;
  for (const auto& t : db.tasks()) {
    if (!filter.empty() && task_label(t).find(filter) == std::string::npos && t.key.find(filter) == std::string::npos) continue;
    for (auto& a : db.llm_attempts(t.id)) out.push_back(view_of(db, t, std::move(a)));
  }
  std::sort(out.begin(), out.end(), [](const LlmAttemptView& a, const LlmAttemptView& b) { return a.attempt.id < b.attempt.id; });
  return out;
}

std::optional<LlmAttemptView> llm_attempt_view(const KnowledgeDb& db, std::int64_t attempt_id) {
  for (const auto& t : db.tasks())
    for (auto& a : db.llm_attempts(t.id))
      if (a.id == attempt_id) return view_of(db, t, std::move(a));
  return std::nullopt;
}

}  // namespace hone
