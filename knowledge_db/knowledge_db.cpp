#include "knowledge_db/knowledge_db.hpp"

#include <mutex>

#include "knowledge_db/candidates_table.hpp"
#include "knowledge_db/compiles_table.hpp"
#include "knowledge_db/results_table.hpp"
#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "knowledge_db/tasks_table.hpp"
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

std::optional<WinnerRecord> KnowledgeDb::winner(std::int64_t task_id, const std::string& device) const {
  return impl_->read([&] { return sql::winner(impl_->db, task_id, device); });
}

std::vector<WinnerRecord> KnowledgeDb::winners() const {
  return impl_->read([&] { return sql::winners(impl_->db); });
}

}  // namespace hone
