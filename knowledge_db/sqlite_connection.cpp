#include "knowledge_db/sqlite_connection.hpp"

#include <limits>
#include <thread>

#include <sqlite3.h>

namespace hone {

SqliteConnection::SqliteConnection(const std::filesystem::path& file, std::chrono::milliseconds busy_timeout,
                                   bool read_only)
    : name_(file.string()), busy_timeout_(busy_timeout) {
  const int mode = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(name_.c_str(), &db_, mode | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw DbError(name_ + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  // Several tuning processes may write to one file: a writer waits for the lock instead of failing.
  sqlite3_busy_timeout(db_, static_cast<int>(busy_timeout.count()));
}

SqliteConnection::~SqliteConnection() { sqlite3_close_v2(db_); }

void SqliteConnection::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("cannot run '" + sql + "'");
}

SqliteStatement SqliteConnection::prepare(std::string_view sql) { return SqliteStatement(*this, sql); }

std::int64_t SqliteConnection::query_int(std::string_view sql) {
  SqliteStatement s(*this, sql);
  if (!s.step()) throw DbError(name_ + ": '" + std::string(sql) + "' returned no row");
  return s.column_int64(0);
}

void SqliteConnection::use_wal() {
  // While another connection switches the same new file to WAL, SQLite answers SQLITE_BUSY at
  // once instead of waiting in the busy handler; so wait here, as long as the busy timeout.
  auto deadline = std::chrono::steady_clock::now() + busy_timeout_;
  for (;;) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, "PRAGMA journal_mode = WAL", -1, &stmt, nullptr);
    if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
    std::string mode;
    if (rc == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(stmt, 0);
      mode = text ? reinterpret_cast<const char*>(text) : "";
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_ROW) {
      if (mode != "wal") throw DbError(name_ + ": cannot use WAL journal mode (the file stays in '" + mode + "')");
      return;
    }
    bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy || std::chrono::steady_clock::now() >= deadline) fail("cannot switch to WAL journal mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int SqliteConnection::changes() const { return sqlite3_changes(db_); }
bool SqliteConnection::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

void SqliteConnection::fail(std::string_view what) const {
  throw DbError(name_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_));
}

SqliteStatement::SqliteStatement(SqliteConnection& db, std::string_view sql) : db_(&db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    db.fail("cannot prepare '" + std::string(sql) + "'");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

namespace {
void check_bind(int rc, const SqliteConnection& db, int index) {
  if (rc != SQLITE_OK) db.fail("cannot bind parameter " + std::to_string(index));
}
}  // namespace

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), *db_, index);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), *db_, index);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  // A null pointer would bind NULL; an empty string must stay an empty string.
  const char* data = text.data() ? text.data() : "";
  check_bind(sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), *db_, index);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, SqliteBlob blob) {
  const char* data = blob.bytes.data() ? blob.bytes.data() : "";
  check_bind(sqlite3_bind_blob64(stmt_, index, data, blob.bytes.size(), SQLITE_TRANSIENT), *db_, index);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::nullptr_t) {
  check_bind(sqlite3_bind_null(stmt_, index), *db_, index);
  return *this;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail(std::string("'") + sqlite3_sql(stmt_) + "' failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

bool SqliteStatement::column_is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::int64_t SqliteStatement::column_int64(int col) const { return sqlite3_column_int64(stmt_, col); }

double SqliteStatement::column_real(int col) const {
  if (column_is_null(col)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, col);
}

std::string SqliteStatement::column_text(int col) const {
  const auto* text = sqlite3_column_text(stmt_, col);
  int size = sqlite3_column_bytes(stmt_, col);  // after column_text, so it counts the text's bytes
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)) : std::string();
}

std::string SqliteStatement::column_blob(int col) const {
  const void* data = sqlite3_column_blob(stmt_, col);
  int size = sqlite3_column_bytes(stmt_, col);
  return data ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size)) : std::string();
}

std::string SqliteStatement::column_name(int col) const {
  const char* name = sqlite3_column_name(stmt_, col);
  return name ? name : "";
}

// IMMEDIATE takes the write lock at BEGIN: two writers then queue on the busy timeout, where a
// deferred transaction that later upgrades its read lock could fail at once with SQLITE_BUSY.
SqliteTransaction::SqliteTransaction(SqliteConnection& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
  // A failed statement or COMMIT may already have ended the transaction.
  if (!done_ && db_.in_transaction()) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace hone
