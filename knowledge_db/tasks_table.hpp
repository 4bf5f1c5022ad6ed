#pragma once
// Rows of the tasks table. Writers expect to run inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Inserts the task unless its key exists; returns the id either way and sets task.id.
std::int64_t upsert_task(SqliteConnection& db, TaskRecord& task);
std::optional<TaskRecord> task(SqliteConnection& db, std::int64_t id);
/// All tasks, oldest first.
std::vector<TaskRecord> tasks(SqliteConnection& db);

}  // namespace hone::sql
