#include "knowledge_db/lessons_table.hpp"

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

namespace {

constexpr const char* kSelect =
    "SELECT id, situation, action, tags, confidence, status, superseded_by, origin, key, claim, created_at, "
    "updated_at, (SELECT json_group_array(result_id) FROM (SELECT result_id FROM lesson_evidence "
    "WHERE lesson_id = lessons.id ORDER BY result_id)) FROM lessons";

LessonRecord read_lesson(const SqliteStatement& row) {
  LessonRecord l;
  l.id = row.column_int64(0);
  l.situation = row.column_text(1);
  l.action = row.column_text(2);
  l.tags = column_json(row, 3).get<std::vector<std::string>>();
  l.confidence = row.column_real(4);
  l.status = row.column_text(5);
  l.superseded_by = row.column_is_null(6) ? 0 : row.column_int64(6);
  l.origin = row.column_text(7);
  l.key = row.column_text(8);
  l.claim = row.column_is_null(9) ? nlohmann::json() : column_json(row, 9);
  l.created_at = row.column_text(10);
  l.updated_at = row.column_text(11);
  l.evidence = column_json(row, 12).get<std::vector<std::int64_t>>();
  return l;
}

// NULL for "none", so the unique index on active keys ignores lessons without one.
template <class T>
void bind_or_null(SqliteStatement& s, int index, bool null, const T& value) {
  if (null) s.bind(index, nullptr);
  else s.bind(index, value);
}

void put_evidence(SqliteConnection& db, const LessonRecord& l) {
  db.prepare("DELETE FROM lesson_evidence WHERE lesson_id = ?").bind_all(l.id).run();
  for (std::int64_t r : l.evidence)
    db.prepare("INSERT OR IGNORE INTO lesson_evidence (lesson_id, result_id) VALUES (?, ?)").bind_all(l.id, r).run();
}

}  // namespace

std::int64_t add_lesson(SqliteConnection& db, LessonRecord& l, const std::vector<Embedding>& vectors) {
  validate_lesson(l);
  auto insert = db.prepare(
      "INSERT INTO lessons (situation, action, tags, confidence, status, superseded_by, origin, key, claim) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, created_at, updated_at");
  insert.bind_all(l.situation, l.action, json_to_text(l.tags), l.confidence, l.status);
  bind_or_null(insert, 6, l.superseded_by == 0, l.superseded_by);
  insert.bind(7, l.origin);
  bind_or_null(insert, 8, l.key.empty(), l.key);
  bind_or_null(insert, 9, l.claim.is_null(), json_to_text(l.claim));
  if (!insert.step()) throw DbError(db.name() + ": inserting a lesson returned no id");
  l.id = insert.column_int64(0);
  l.created_at = insert.column_text(1);
  l.updated_at = insert.column_text(2);
  insert.run();
  put_evidence(db, l);
  for (const auto& v : vectors) put_lesson_vector(db, l.id, v);
  return l.id;
}

void update_lesson(SqliteConnection& db, const LessonRecord& l) {
  validate_lesson(l);
  auto update = db.prepare(
      "UPDATE lessons SET situation = ?, action = ?, tags = ?, confidence = ?, claim = ?, "
      "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?");
  update.bind_all(l.situation, l.action, json_to_text(l.tags), l.confidence);
  bind_or_null(update, 5, l.claim.is_null(), json_to_text(l.claim));
  update.bind(6, l.id);
  update.run();
  if (db.changes() == 0) throw DbError(db.name() + ": no lesson #" + std::to_string(l.id) + " to update");
  put_evidence(db, l);
}

void supersede_lesson(SqliteConnection& db, std::int64_t id, std::int64_t by) {
  auto s = db.prepare(
      "UPDATE lessons SET status = 'superseded', superseded_by = ?, "
      "updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?");
  bind_or_null(s, 1, by == 0, by);
  s.bind(2, id);
  s.run();
}

std::optional<LessonRecord> lesson(SqliteConnection& db, std::int64_t id) {
  auto row = db.prepare(std::string(kSelect) + " WHERE id = ?");
  row.bind(1, id);
  if (!row.step()) return std::nullopt;
  return read_lesson(row);
}

std::vector<LessonRecord> lessons(SqliteConnection& db, bool include_superseded) {
  auto row = db.prepare(std::string(kSelect) + (include_superseded ? "" : " WHERE status = 'active'") + " ORDER BY id");
  std::vector<LessonRecord> out;
  while (row.step()) out.push_back(read_lesson(row));
  return out;
}

void put_lesson_vector(SqliteConnection& db, std::int64_t lesson_id, const Embedding& v) {
  if (v.model.empty() || v.values.empty()) throw DbError(db.name() + ": a lesson vector needs a model and values");
  db.prepare("INSERT OR REPLACE INTO lesson_vectors (lesson_id, model, dim, vector) VALUES (?, ?, ?, ?)")
      .bind_all(lesson_id, v.model, static_cast<std::int64_t>(v.values.size()))
      .bind(4, SqliteBlob{vector_to_blob(v.values)})
      .run();
}

std::map<std::int64_t, Embedding> lesson_vectors(SqliteConnection& db, const std::string& model) {
  auto row = db.prepare("SELECT lesson_id, vector FROM lesson_vectors WHERE model = ?");
  row.bind(1, model);
  std::map<std::int64_t, Embedding> out;
  while (row.step()) out[row.column_int64(0)] = Embedding{model, vector_from_blob(row.column_blob(1))};
  return out;
}

std::vector<LessonRecord> lessons_without_vector(SqliteConnection& db, const std::string& model) {
  auto row = db.prepare(std::string(kSelect) +
                        " WHERE NOT EXISTS (SELECT 1 FROM lesson_vectors v WHERE v.lesson_id = lessons.id AND "
                        "v.model = ?) ORDER BY id");
  row.bind(1, model);
  std::vector<LessonRecord> out;
  while (row.step()) out.push_back(read_lesson(row));
  return out;
}

}  // namespace hone::sql
