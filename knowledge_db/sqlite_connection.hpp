#pragma once
// A thin RAII layer over the SQLite C API: one connection, its prepared statements and a
// write-transaction guard. Every SQLite error becomes a DbError naming the file.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "knowledge_db/knowledge_db.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace hone {

class SqliteStatement;

/// Bytes to bind as a BLOB rather than as TEXT.
struct SqliteBlob {
  std::string_view bytes;
};

class SqliteConnection {
 public:
  /// Opens (creating when absent) the file for reading and writing, or only for reading (the
  /// file must exist; not even a WAL checkpoint will change it). SQLite reads nothing until the
  /// first statement, so opening alone neither checks nor changes the file.
  explicit SqliteConnection(const std::filesystem::path& file,
                            std::chrono::milliseconds busy_timeout = std::chrono::seconds(10), bool read_only = false);
  ~SqliteConnection();
  // Statements keep a reference to their connection.
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  /// The file, as error messages name it.
  const std::string& name() const { return name_; }
  sqlite3* handle() const { return db_; }

  /// Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  SqliteStatement prepare(std::string_view sql);
  /// The first column of the first row of a query, as an integer.
  std::int64_t query_int(std::string_view sql);

  /// Switches the file to WAL journal mode; throws DbError when it stays in another mode.
  void use_wal();

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  int changes() const;
  bool in_transaction() const;

  /// Throws DbError("<file>: <what>: <sqlite3_errmsg>").
  [[noreturn]] void fail(std::string_view what) const;

 private:
  std::string name_;
  std::chrono::milliseconds busy_timeout_;
  sqlite3* db_ = nullptr;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteConnection& db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters count from 1, as in SQLite. Values are copied, so temporaries may be bound.
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, SqliteBlob blob);
  SqliteStatement& bind(int index, std::nullptr_t);
  /// Binds the arguments to parameters 1, 2, ...
  template <class... Args>
  SqliteStatement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  /// Advances to the next row; false when there are no more.
  bool step();
  /// Runs a statement that returns no rows.
  void run();

  bool column_is_null(int col) const;
  std::int64_t column_int64(int col) const;
  int column_int(int col) const { return static_cast<int>(column_int64(col)); }
  /// A REAL column; NULL reads as NaN, because SQLite stores a bound NaN as NULL.
  double column_real(int col) const;
  std::string column_text(int col) const;
  std::string column_blob(int col) const;
  std::string column_name(int col) const;
  SqliteConnection& connection() const { return *db_; }

 private:
  SqliteConnection* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// A write transaction that rolls back unless committed, so an exception leaves nothing behind.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteConnection& db);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;

  void commit();

 private:
  SqliteConnection& db_;
  bool done_ = false;
};

}  // namespace hone
