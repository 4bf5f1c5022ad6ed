#include "knowledge_db/tasks_table.hpp"

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

namespace {

constexpr const char* kSelect =
    "SELECT id, key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers FROM tasks";

TaskRecord read_task(const SqliteStatement& row) {
  TaskRecord t;
  t.id = row.column_int64(0);
  t.key = row.column_text(1);
  t.op = row.column_text(2);
  t.spec_hash = row.column_text(3);
  t.static_dims = column_json(row, 4);
  t.buckets = column_json(row, 5);
  t.shape = column_json(row, 6);
  t.scalars = column_json(row, 7);
  t.arch = row.column_text(8);
  t.layers = column_json(row, 9);
  return t;
}

}  // namespace

std::int64_t upsert_task(SqliteConnection& db, TaskRecord& task) {
  db.prepare(
        "INSERT INTO tasks (key, op, spec_hash, static_dims, buckets, shape, scalars, arch, layers) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING")
      .bind_all(task.key, task.op, task.spec_hash, json_to_text(task.static_dims), json_to_text(task.buckets),
                json_to_text(task.shape), json_to_text(task.scalars), task.arch, json_to_text(task.layers))
      .run();
  auto find = db.prepare("SELECT id FROM tasks WHERE key = ?");
  find.bind(1, task.key);
  if (!find.step()) throw DbError(db.name() + ": task '" + task.key + "' vanished after its insert");
  task.id = find.column_int64(0);
  return task.id;
}

std::optional<TaskRecord> task(SqliteConnection& db, std::int64_t id) {
  auto row = db.prepare(std::string(kSelect) + " WHERE id = ?");
  row.bind(1, id);
  if (!row.step()) return std::nullopt;
  return read_task(row);
}

std::vector<TaskRecord> tasks(SqliteConnection& db) {
  auto row = db.prepare(std::string(kSelect) + " ORDER BY id");
  std::vector<TaskRecord> out;
  while (row.step()) out.push_back(read_task(row));
  return out;
}

}  // namespace hone::sql
