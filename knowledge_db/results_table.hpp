#pragma once
// Rows of the results table: every validation outcome, kept as history. Writers expect to run
// inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Appends the result; sets result.id and result.created_at and returns the id.
std::int64_t add_result(SqliteConnection& db, ResultRecord& result);
std::optional<ResultRecord> latest_result(SqliteConnection& db, std::int64_t task_id, std::int64_t candidate_id,
                                          const std::string& device);
/// The task's results, oldest first.
std::vector<ResultRecord> results_for_task(SqliteConnection& db, std::int64_t task_id);

}  // namespace hone::sql
