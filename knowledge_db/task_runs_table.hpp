#pragma once
// Rows of the task_runs table: tasks finished on a device under a plan. Writers expect to run
// inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

void mark_task_done(SqliteConnection& db, std::int64_t task_id, const std::string& device, const std::string& plan,
                    const nlohmann::json& summary);
std::optional<nlohmann::json> task_done(SqliteConnection& db, std::int64_t task_id, const std::string& device,
                                        const std::string& plan);

}  // namespace hone::sql
