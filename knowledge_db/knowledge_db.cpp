#include "knowledge_db/knowledge_db.hpp"

#include <mutex>

#include "knowledge_db/candidates_table.hpp"
#include "knowledge_db/compiles_table.hpp"
#include "knowledge_db/json_column.hpp"
#include "knowledge_db/lessons_table.hpp"
#include "knowledge_db/llm_attempts_table.hpp"
#include "knowledge_db/local_embedding.hpp"
#include "knowledge_db/results_table.hpp"
#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "knowledge_db/tasks_table.hpp"
#include "knowledge_db/task_runs_table.hpp"
#include "knowledge_db/winners_table.hpp"

namespace hone {

struct KnowledgeDb::Impl {
  explicit Impl(const std::filesystem::path& f) : file(f), db(f) {}

  std::filesystem::path file;
  SqliteConnection db;
  // One connection per object: threads sharing an object take turns, so that one thread's
  // statements never land inside another's transaction.
  std::mutex mutex;

  template <class F>
  auto write(F&& f) {
    std::lock_guard lock(mutex);
    SqliteTransaction transaction(db);
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      transaction.commit();
    } else {
      auto result = f();
      transaction.commit();
      return result;
    }
  }

  template <class F>
  auto read(F&& f) {
    std::lock_guard lock(mutex);
    return f();
  }
};

KnowledgeDb::KnowledgeDb(const std::filesystem::path& file) : impl_(std::make_unique<Impl>(file)) {
  SqliteConnection& db = impl_->db;
  // Check before anything that writes: a file that is not ours must be left as it was.
  check_hone_database(db, schema_version());
  // Still before any write: a damaged file must not be written to (and, with WAL, checkpointed)
  // before anyone has looked at it. quick_check reads every page but skips the index checks;
  // `hone db check` does the full integrity_check.
  check_not_corrupt(db);
  // WAL lets readers work while one process writes, so that several tuning jobs can share a file.
  db.use_wal();
  // NORMAL is durable enough with WAL (a power loss may drop the last commits, never corrupts)
  // and spares an fsync per result.
  db.exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL");
  migrate(db, schema_migrations());
}

KnowledgeDb::~KnowledgeDb() = default;

int KnowledgeDb::schema_version() { return latest_schema_version(); }

const std::filesystem::path& KnowledgeDb::file() const { return impl_->file; }

std::int64_t KnowledgeDb::upsert_task(TaskRecord& task) {
  return impl_->write([&] { return sql::upsert_task(impl_->db, task); });
}

std::optional<TaskRecord> KnowledgeDb::task(std::int64_t id) const {
  return impl_->read([&] { return sql::task(impl_->db, id); });
}

std::vector<TaskRecord> KnowledgeDb::tasks() const {
  return impl_->read([&] { return sql::tasks(impl_->db); });
}

std::int64_t KnowledgeDb::upsert_candidate(CandidateRecord& candidate) {
  return impl_->write([&] { return sql::upsert_candidate(impl_->db, candidate); });
}

std::optional<CandidateRecord> KnowledgeDb::candidate(std::int64_t id) const {
  return impl_->read([&] { return sql::candidate(impl_->db, id); });
}

void KnowledgeDb::put_compile(const CompileRecord& compile) {
  impl_->write([&] { sql::put_compile(impl_->db, compile); });
}

std::optional<CompileRecord> KnowledgeDb::compile(std::int64_t candidate_id, const std::string& arch) const {
  return impl_->read([&] { return sql::compile(impl_->db, candidate_id, arch); });
}

std::int64_t KnowledgeDb::add_result(ResultRecord& result) {
  return impl_->write([&] { return sql::add_result(impl_->db, result); });
}

std::optional<ResultRecord> KnowledgeDb::latest_result(std::int64_t task_id, std::int64_t candidate_id,
                                                       const std::string& device) const {
  return impl_->read([&] { return sql::latest_result(impl_->db, task_id, candidate_id, device); });
}

std::vector<ResultRecord> KnowledgeDb::results_for_task(std::int64_t task_id) const {
  return impl_->read([&] { return sql::results_for_task(impl_->db, task_id); });
}

bool KnowledgeDb::offer_winner(const WinnerRecord& winner) {
  return impl_->write([&] { return sql::offer_winner(impl_->db, winner); });
}

bool KnowledgeDb::retime_winner(std::int64_t task_id, const std::string& device, std::int64_t candidate_id,
                                double time_ms, double baseline_ms) {
  return impl_->write([&] { return sql::retime_winner(impl_->db, task_id, device, candidate_id, time_ms, baseline_ms); });
}

void KnowledgeDb::set_winner(const WinnerRecord& winner) {
  impl_->write([&] { sql::set_winner(impl_->db, winner); });
}

void KnowledgeDb::mark_task_done(std::int64_t task_id, const std::string& device, const std::string& plan,
                                 const nlohmann::json& summary) {
  impl_->write([&] { sql::mark_task_done(impl_->db, task_id, device, plan, summary); });
}

std::optional<nlohmann::json> KnowledgeDb::task_done(std::int64_t task_id, const std::string& device,
                                                     const std::string& plan) const {
  return impl_->read([&] { return sql::task_done(impl_->db, task_id, device, plan); });
}

std::optional<WinnerRecord> KnowledgeDb::winner(std::int64_t task_id, const std::string& device) const {
  return impl_->read([&] { return sql::winner(impl_->db, task_id, device); });
}

std::vector<WinnerRecord> KnowledgeDb::winners() const {
  return impl_->read([&] { return sql::winners(impl_->db); });
}

void KnowledgeDb::put_op_spec(const std::string& hash, const std::string& op, const nlohmann::json& spec) {
  impl_->write([&] {
    impl_->db.prepare("INSERT INTO op_specs (hash, op, spec) VALUES (?, ?, ?) ON CONFLICT (hash) DO UPDATE SET spec = excluded.spec")
        .bind_all(hash, op, json_to_text(spec))
        .run();
  });
}

std::optional<nlohmann::json> KnowledgeDb::op_spec(const std::string& hash) const {
  return impl_->read([&]() -> std::optional<nlohmann::json> {
    auto row = impl_->db.prepare("SELECT spec FROM op_specs WHERE hash = ?");
    row.bind(1, hash);
    if (!row.step()) return std::nullopt;
    return row.column_is_null(0) ? nlohmann::json() : column_json(row, 0);
  });
}

std::vector<std::string> KnowledgeDb::devices() const {
  return impl_->read([&] {
    auto row = impl_->db.prepare("SELECT name FROM devices ORDER BY name");
    std::vector<std::string> out;
    while (row.step()) out.push_back(row.column_text(0));
    return out;
  });
}

void KnowledgeDb::put_device_limits(const std::string& device, const nlohmann::json& limits) {
  impl_->write([&] {
    // The kind is the name's prefix, as the trigger that records a result's device has it.
    impl_->db
        .prepare("INSERT INTO devices (name, kind, limits) VALUES (?1, CASE WHEN instr(?1, ':') > 0 THEN substr(?1, 1, instr(?1, ':') - 1) "
                 "ELSE ?1 END, ?2) ON CONFLICT (name) DO UPDATE SET limits = excluded.limits")
        .bind_all(device, json_to_text(limits))
        .run();
  });
}

std::optional<nlohmann::json> KnowledgeDb::device_limits(const std::string& device) const {
  return impl_->read([&]() -> std::optional<nlohmann::json> {
    auto row = impl_->db.prepare("SELECT limits FROM devices WHERE name = ?");
    row.bind(1, device);
    if (!row.step() || row.column_is_null(0)) return std::nullopt;
    return column_json(row, 0);
  });
}

std::int64_t KnowledgeDb::add_lesson(LessonRecord& lesson, const std::vector<Embedding>& vectors) {
  validate_lesson(lesson);  // before embedding: a refused lesson costs nothing
  std::vector<Embedding> all = vectors;
  all.push_back(local_embedding(lesson_text(lesson)));
  return impl_->write([&] { return sql::add_lesson(impl_->db, lesson, all); });
}

std::optional<LessonRecord> KnowledgeDb::lesson(std::int64_t id) const {
  return impl_->read([&] { return sql::lesson(impl_->db, id); });
}

std::vector<LessonRecord> KnowledgeDb::lessons(bool include_superseded) const {
  return impl_->read([&] { return sql::lessons(impl_->db, include_superseded); });
}

void KnowledgeDb::put_lesson_vector(std::int64_t lesson_id, const Embedding& vector) {
  impl_->write([&] { sql::put_lesson_vector(impl_->db, lesson_id, vector); });
}

std::vector<LessonRecord> KnowledgeDb::lessons_without_vector(const std::string& model) const {
  return impl_->read([&] { return sql::lessons_without_vector(impl_->db, model); });
}

std::vector<LessonHit> KnowledgeDb::search_lessons(const LessonQuery& query, const std::optional<Embedding>& query_vector) const {
  const Embedding v = query_vector ? *query_vector : local_embedding(query.text);
  return impl_->read([&] { return sql::search_lessons(impl_->db, query, v); });
}

DistillReport KnowledgeDb::distill_lessons(const DistillOptions& options) {
  return impl_->write([&] { return sql::distill_lessons(impl_->db, options); });
}

std::int64_t KnowledgeDb::add_llm_attempt(LlmAttemptRecord& attempt) {
  return impl_->write([&] { return sql::add_llm_attempt(impl_->db, attempt); });
}

std::vector<LlmAttemptRecord> KnowledgeDb::llm_attempts(std::int64_t task_id) const {
  return impl_->read([&] { return sql::llm_attempts(impl_->db, task_id); });
}

std::optional<LlmAttemptRecord> KnowledgeDb::llm_attempt_for_candidate(std::int64_t candidate_id) const {
  return impl_->read([&] { return sql::llm_attempt_for_candidate(impl_->db, candidate_id); });
}

}  // namespace hone
