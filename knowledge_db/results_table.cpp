#include "knowledge_db/results_table.hpp"

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

namespace {

constexpr const char* kSelect =
    "SELECT id, task_id, candidate_id, device, verdict, stage, reason, max_abs_err, time_ms, time_min_ms, "
    "time_spread, runs, timer, detail, created_at FROM results";

ResultRecord read_result(const SqliteStatement& row) {
  ResultRecord r;
  r.id = row.column_int64(0);
  r.task_id = row.column_int64(1);
  r.candidate_id = row.column_int64(2);
  r.device = row.column_text(3);
  r.verdict = row.column_text(4);
  r.stage = row.column_text(5);
  r.reason = row.column_text(6);
  r.max_abs_err = row.column_real(7);
  r.time_ms = row.column_real(8);
  r.time_min_ms = row.column_real(9);
  r.time_spread = row.column_real(10);
  r.runs = row.column_int(11);
  r.timer = row.column_text(12);
  r.detail = column_json(row, 13);
  r.created_at = row.column_text(14);
  return r;
}

}  // namespace

std::int64_t add_result(SqliteConnection& db, ResultRecord& r) {
  auto insert = db.prepare(
      "INSERT INTO results (task_id, candidate_id, device, verdict, stage, reason, max_abs_err, time_ms, "
      "time_min_ms, time_spread, runs, timer, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "RETURNING id, created_at");
  insert.bind_all(r.task_id, r.candidate_id, r.device, r.verdict, r.stage, r.reason, r.max_abs_err, r.time_ms,
                  r.time_min_ms, r.time_spread, r.runs, r.timer, json_to_text(r.detail));
  if (!insert.step()) throw DbError(db.name() + ": inserting a result returned no id");
  r.id = insert.column_int64(0);
  r.created_at = insert.column_text(1);
  insert.run();  // RETURNING rows are produced before the statement completes
  return r.id;
}

std::optional<ResultRecord> latest_result(SqliteConnection& db, std::int64_t task_id, std::int64_t candidate_id,
                                          const std::string& device) {
  // Ids only grow (AUTOINCREMENT), so the highest is the newest even when clocks disagree.
  auto row = db.prepare(std::string(kSelect) +
                        " WHERE task_id = ? AND candidate_id = ? AND device = ? ORDER BY id DESC LIMIT 1");
  row.bind_all(task_id, candidate_id, device);
  if (!row.step()) return std::nullopt;
  return read_result(row);
}

std::vector<ResultRecord> results_for_task(SqliteConnection& db, std::int64_t task_id) {
  auto row = db.prepare(std::string(kSelect) + " WHERE task_id = ? ORDER BY id");
  row.bind(1, task_id);
  std::vector<ResultRecord> out;
  while (row.step()) out.push_back(read_result(row));
  return out;
}

}  // namespace hone::sql
