#include "knowledge_db/candidates_table.hpp"

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

std::int64_t upsert_candidate(SqliteConnection& db, CandidateRecord& c) {
  auto insert = db.prepare(
      "INSERT INTO candidates (key, op, origin, variant, params, entry, source, launch, parent) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING");
  insert.bind_all(c.key, c.op, c.origin, c.variant, json_to_text(c.params), c.entry, c.source, json_to_text(c.launch));
  if (c.parent) insert.bind(9, c.parent);
  else insert.bind(9, nullptr);  // NULL, not 0: the column references candidates(id)
  insert.run();
  auto find = db.prepare("SELECT id FROM candidates WHERE key = ?");
  find.bind(1, c.key);
  if (!find.step()) throw DbError(db.name() + ": candidate '" + c.key + "' vanished after its insert");
  c.id = find.column_int64(0);
  return c.id;
}

std::optional<CandidateRecord> candidate(SqliteConnection& db, std::int64_t id) {
  auto row = db.prepare(
      "SELECT id, key, op, origin, variant, params, entry, source, launch, parent FROM candidates WHERE id = ?");
  row.bind(1, id);
  if (!row.step()) return std::nullopt;
  CandidateRecord c;
  c.id = row.column_int64(0);
  c.key = row.column_text(1);
  c.op = row.column_text(2);
  c.origin = row.column_text(3);
  c.variant = row.column_text(4);
  c.params = column_json(row, 5);
  c.entry = row.column_text(6);
  c.source = row.column_text(7);
  c.launch = column_json(row, 8);
  c.parent = row.column_is_null(9) ? 0 : row.column_int64(9);
  return c;
}

}  // namespace hone::sql
