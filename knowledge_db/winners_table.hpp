#pragma once
// Rows of the winners table: the fastest passing candidate per (task, device). Writers expect to
// run inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "knowledge_db/knowledge_db.hpp"

namespace hone {
class SqliteConnection;
}

namespace hone::sql {

/// Stores the winner when (task, device) has none or it is strictly faster; returns whether it did.
bool offer_winner(SqliteConnection& db, const WinnerRecord& winner);
/// Stores `winner` for (task, device), replacing any, re-timed figures included.
void set_winner(SqliteConnection& db, const WinnerRecord& winner);
std::optional<WinnerRecord> winner(SqliteConnection& db, std::int64_t task_id, const std::string& device);
/// The re-timed figures of the winner of (task, device) if it is still `candidate_id`; returns whether it was.
bool retime_winner(SqliteConnection& db, std::int64_t task_id, const std::string& device, std::int64_t candidate_id,
                   double time_ms, double baseline_ms);
/// All winners by task, then device.
std::vector<WinnerRecord> winners(SqliteConnection& db);

}  // namespace hone::sql
