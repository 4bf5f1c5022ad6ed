#include "knowledge_db/winners_table.hpp"

#include <cmath>
#include <stdexcept>

#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

namespace {

constexpr const char* kSelect =
    "SELECT task_id, device, candidate_id, result_id, time_ms, baseline_ms, updated_at, retimed_ms, retimed_baseline_ms "
    "FROM winners";

WinnerRecord read_winner(const SqliteStatement& row) {
  WinnerRecord w;
  w.task_id = row.column_int64(0);
  w.device = row.column_text(1);
  w.candidate_id = row.column_int64(2);
  w.result_id = row.column_int64(3);
  w.time_ms = row.column_real(4);
  w.baseline_ms = row.column_real(5);
  w.updated_at = row.column_text(6);
  w.retimed_ms = row.column_is_null(7) ? 0 : row.column_real(7);
  w.retimed_baseline_ms = row.column_is_null(8) ? 0 : row.column_real(8);
  return w;
}

}  // namespace

bool retime_winner(SqliteConnection& db, std::int64_t task_id, const std::string& device, std::int64_t candidate_id,
                   double time_ms, double baseline_ms) {
  if (!(std::isfinite(time_ms) && time_ms > 0 && std::isfinite(baseline_ms) && baseline_ms > 0))
    throw std::invalid_argument(db.name() + ": re-timed figures must be positive, got " + std::to_string(time_ms) + " and " +
                                std::to_string(baseline_ms) + " ms");
  db.prepare("UPDATE winners SET retimed_ms = ?, retimed_baseline_ms = ? WHERE task_id = ? AND device = ? AND candidate_id = ?")
      .bind_all(time_ms, baseline_ms, task_id, device, candidate_id)
      .run();
  return db.changes() > 0;
}

bool offer_winner(SqliteConnection& db, const WinnerRecord& w) {
  // An untimed (0) or NaN time would win against nothing, or never lose: a programming error.
  if (!(std::isfinite(w.time_ms) && w.time_ms > 0)) {
    throw std::invalid_argument(db.name() + ": a winner needs a positive time, got " + std::to_string(w.time_ms) +
                                " ms");
  }
  // One statement decides and writes, so two processes offering at once cannot both win.
  db.prepare(
        "INSERT INTO winners (task_id, device, candidate_id, result_id, time_ms, baseline_ms) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task_id, device) DO UPDATE SET "
        "candidate_id = excluded.candidate_id, result_id = excluded.result_id, time_ms = excluded.time_ms, "
        "baseline_ms = excluded.baseline_ms, retimed_ms = NULL, retimed_baseline_ms = NULL, "
        "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
        "WHERE excluded.time_ms < winners.time_ms")
      .bind_all(w.task_id, w.device, w.candidate_id, w.result_id, w.time_ms, w.baseline_ms)
      .run();
  return db.changes() > 0;
}

void set_winner(SqliteConnection& db, const WinnerRecord& w) {
  if (!(std::isfinite(w.time_ms) && w.time_ms > 0))
    throw std::invalid_argument(db.name() + ": a winner needs a positive time, got " + std::to_string(w.time_ms) + " ms");
  db.prepare(
        "INSERT INTO winners (task_id, device, candidate_id, result_id, time_ms, baseline_ms, retimed_ms, retimed_baseline_ms) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id, device) DO UPDATE SET "
        "candidate_id = excluded.candidate_id, result_id = excluded.result_id, time_ms = excluded.time_ms, "
        "baseline_ms = excluded.baseline_ms, retimed_ms = excluded.retimed_ms, retimed_baseline_ms = excluded.retimed_baseline_ms, "
        "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")
      .bind_all(w.task_id, w.device, w.candidate_id, w.result_id, w.time_ms, w.baseline_ms, w.retimed_ms, w.retimed_baseline_ms)
      .run();
}

std::optional<WinnerRecord> winner(SqliteConnection& db, std::int64_t task_id, const std::string& device) {
  auto row = db.prepare(std::string(kSelect) + " WHERE task_id = ? AND device = ?");
  row.bind_all(task_id, device);
  if (!row.step()) return std::nullopt;
  return read_winner(row);
}

std::vector<WinnerRecord> winners(SqliteConnection& db) {
  auto row = db.prepare(std::string(kSelect) + " ORDER BY task_id, device");
  std::vector<WinnerRecord> out;
  while (row.step()) out.push_back(read_winner(row));
  return out;
}

}  // namespace hone::sql
