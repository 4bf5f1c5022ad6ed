#include "knowledge_db/task_runs_table.hpp"

#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

void mark_task_done(SqliteConnection& db, std::int64_t task_id, const std::string& device, const std::string& plan,
                    const nlohmann::json& summary) {
  db.prepare(
        "INSERT INTO task_runs (task_id, device, plan, summary) VALUES (?, ?, ?, ?) ON CONFLICT (task_id, device, plan) "
        "DO UPDATE SET summary = excluded.summary, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")
      .bind_all(task_id, device, plan, summary.dump())
      .run();
}

std::optional<nlohmann::json> task_done(SqliteConnection& db, std::int64_t task_id, const std::string& device,
                                        const std::string& plan) {
  auto row = db.prepare("SELECT summary FROM task_runs WHERE task_id = ? AND device = ? AND plan = ?");
  row.bind_all(task_id, device, plan);
  if (!row.step()) return std::nullopt;
  return nlohmann::json::parse(row.column_text(0));
}

}  // namespace hone::sql
