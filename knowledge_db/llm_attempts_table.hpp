#pragma once
// Rows of the llm_attempts table and its links to candidates. Writers expect to run inside the
// caller's transaction.
#include <cstdint>
#include <optional>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Inserts the attempt and its candidate links; sets attempt.id and returns it.
std::int64_t add_llm_attempt(SqliteConnection& db, LlmAttemptRecord& attempt);
std::vector<LlmAttemptRecord> llm_attempts(SqliteConnection& db, std::int64_t task_id);
std::optional<LlmAttemptRecord> llm_attempt_for_candidate(SqliteConnection& db, std::int64_t candidate_id);

}  // namespace hone::sql
