#pragma once
// What the LLM proposer did, read back from the database after the job: each attempt with its
// task, the exact prompt it sent, the lessons that prompt showed, the reply, the token usage, and
// what became of the candidates the reply gave. `hone llm attempts` and `hone llm show` print it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {

struct LlmCandidateOutcome {
  std::int64_t candidate_id = 0;
  std::string entry;
  nlohmann::json params;           // the configuration of the reply's parameter space, {} for none
  std::string verdict;             // "pass" | "fail" | "" when not evaluated yet
  std::string stage, reason;
  double time_ms = 0;
};

struct LlmAttemptView {
  LlmAttemptRecord attempt;
  std::string task;                // "rmsnorm hidden=256 tokens=1..4"
  std::vector<LessonRecord> lessons;  // the lessons its prompt showed, in the prompt's order
  std::vector<LlmCandidateOutcome> candidates;

  nlohmann::json to_json() const;
  /// The prompt exactly as sent, message by message, as readable text.
  std::string prompt_text() const;
};

/// Every attempt, oldest first; only those of tasks whose label or key contains `task_filter`
/// when it is not empty.
std::vector<LlmAttemptView> llm_attempt_views(const KnowledgeDb& db, const std::string& task_filter = "");

/// One attempt by its id, if there is one.
std::optional<LlmAttemptView> llm_attempt_view(const KnowledgeDb& db, std::int64_t attempt_id);

}  // namespace hone
