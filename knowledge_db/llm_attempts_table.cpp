#include "knowledge_db/llm_attempts_table.hpp"

#include "knowledge_db/json_column.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone::sql {

namespace {

constexpr const char* kColumns =
    "a.id, a.task_id, a.attempt, a.model, a.parent_id, a.prompt, a.reply, a.finish_reason, a.outcome, a.reason, "
    "a.lessons_used, a.lesson_id, a.lesson_note, a.requests, a.prompt_tokens, a.completion_tokens, a.latency_ms, "
    "a.created_at";

// 0 stands for "none" in the record; the columns reference other tables, so it is stored as NULL.
void bind_id(SqliteStatement& s, int index, std::int64_t id) {
  if (id) s.bind(index, id);
  else s.bind(index, nullptr);
}

std::int64_t id_or_zero(const SqliteStatement& row, int col) { return row.column_is_null(col) ? 0 : row.column_int64(col); }

LlmAttemptRecord read_attempt(SqliteConnection& db, const SqliteStatement& row) {
  LlmAttemptRecord a;
  a.id = row.column_int64(0);
  a.task_id = row.column_int64(1);
  a.attempt = row.column_int(2);
  a.model = row.column_text(3);
  a.parent_id = id_or_zero(row, 4);
  a.prompt = column_json(row, 5);
  a.reply = row.column_text(6);
  a.finish_reason = row.column_text(7);
  a.outcome = row.column_text(8);
  a.reason = row.column_text(9);
  a.lessons_used = column_json(row, 10).get<std::vector<std::int64_t>>();
  a.lesson_id = id_or_zero(row, 11);
  a.lesson_note = row.column_text(12);
  a.requests = row.column_int(13);
  a.prompt_tokens = row.column_int64(14);
  a.completion_tokens = row.column_int64(15);
  a.latency_ms = row.column_is_null(16) ? 0 : row.column_real(16);
  a.created_at = row.column_text(17);
  auto links = db.prepare("SELECT candidate_id FROM llm_attempt_candidates WHERE attempt_id = ? ORDER BY candidate_id");
  links.bind(1, a.id);
  while (links.step()) a.candidate_ids.push_back(links.column_int64(0));
  return a;
}

}  // namespace

std::int64_t add_llm_attempt(SqliteConnection& db, LlmAttemptRecord& a) {
  auto insert = db.prepare(
      "INSERT INTO llm_attempts (task_id, attempt, model, parent_id, prompt, reply, finish_reason, outcome, reason, "
      "lessons_used, lesson_id, lesson_note, requests, prompt_tokens, completion_tokens, latency_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind_all(a.task_id, a.attempt, a.model);
  bind_id(insert, 4, a.parent_id);
  insert.bind(5, json_to_text(a.prompt))
      .bind(6, a.reply)
      .bind(7, a.finish_reason)
      .bind(8, a.outcome)
      .bind(9, a.reason)
      .bind(10, nlohmann::json(a.lessons_used).dump());
  bind_id(insert, 11, a.lesson_id);
  insert.bind(12, a.lesson_note)
      .bind(13, a.requests)
      .bind(14, a.prompt_tokens)
      .bind(15, a.completion_tokens)
      .bind(16, a.latency_ms);
  insert.run();
  a.id = db.query_int("SELECT last_insert_rowid()");
  for (std::int64_t c : a.candidate_ids)
    db.prepare("INSERT OR IGNORE INTO llm_attempt_candidates (attempt_id, candidate_id) VALUES (?, ?)").bind_all(a.id, c).run();
  return a.id;
}

std::vector<LlmAttemptRecord> llm_attempts(SqliteConnection& db, std::int64_t task_id) {
  auto row = db.prepare(std::string("SELECT ") + kColumns + " FROM llm_attempts a WHERE a.task_id = ? ORDER BY a.id");
  row.bind(1, task_id);
  std::vector<LlmAttemptRecord> out;
  while (row.step()) out.push_back(read_attempt(db, row));
  return out;
}

std::optional<LlmAttemptRecord> llm_attempt_for_candidate(SqliteConnection& db, std::int64_t candidate_id) {
  auto row = db.prepare(std::string("SELECT ") + kColumns +
                        " FROM llm_attempts a JOIN llm_attempt_candidates l ON l.attempt_id = a.id "
                        "WHERE l.candidate_id = ? ORDER BY a.id DESC LIMIT 1");
  row.bind(1, candidate_id);
  if (!row.step()) return std::nullopt;
  return read_attempt(db, row);
}

}  // namespace hone::sql
