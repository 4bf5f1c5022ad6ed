#include <doctest/doctest.h>

#include <stdexcept>

#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

TEST_CASE("an exception inside a transaction leaves nothing behind") {
  test::TempDir dir;
  SqliteConnection db(dir / "t.db");
  db.exec("CREATE TABLE t (x INTEGER)");
  try {
    SqliteTransaction transaction(db);
    db.exec("INSERT INTO t VALUES (1)");
    db.exec("INSERT INTO t VALUES (2)");
    throw std::runtime_error("interrupted");
  } catch (const std::runtime_error&) {
  }
  CHECK_FALSE(db.in_transaction());
  CHECK(db.query_int("SELECT count(*) FROM t") == 0);
  SqliteConnection other(dir / "t.db");
  CHECK(other.query_int("SELECT count(*) FROM t") == 0);
}

TEST_CASE("a committed transaction keeps its writes") {
  test::TempDir dir;
  SqliteConnection db(dir / "t.db");
  db.exec("CREATE TABLE t (x INTEGER)");
  {
    SqliteTransaction transaction(db);
    db.exec("INSERT INTO t VALUES (1)");
    transaction.commit();
  }
  CHECK_FALSE(db.in_transaction());
  SqliteConnection other(dir / "t.db");
  CHECK(other.query_int("SELECT count(*) FROM t") == 1);
}

TEST_CASE("a failed statement inside a transaction rolls the transaction back") {
  test::TempDir dir;
  SqliteConnection db(dir / "t.db");
  db.exec("CREATE TABLE t (x INTEGER NOT NULL)");
  CHECK_THROWS_AS(([&] {
                    SqliteTransaction transaction(db);
                    db.exec("INSERT INTO t VALUES (1)");
                    db.prepare("INSERT INTO t VALUES (?)").bind(1, nullptr).run();
                    transaction.commit();
                  }()),
                  DbError);
  CHECK_FALSE(db.in_transaction());
  CHECK(db.query_int("SELECT count(*) FROM t") == 0);
}

TEST_CASE("SQLite errors name the file and SQLite's message") {
  test::TempDir dir;
  auto file = dir / "t.db";
  SqliteConnection db(file);
  try {
    db.exec("SELECT * FROM no_such_table");
    FAIL("expected a DbError");
  } catch (const DbError& e) {
    std::string what = e.what();
    CHECK(what.rfind(file.string() + ": ", 0) == 0);
    CHECK(what.find("no such table: no_such_table") != std::string::npos);
  }
}

TEST_CASE("text and blobs keep every byte, embedded zeros included") {
  test::TempDir dir;
  SqliteConnection db(dir / "t.db");
  db.exec("CREATE TABLE t (s TEXT, b BLOB, e TEXT)");
  const std::string text("a\0b\xc3\xa9", 5);
  const std::string blob("\x7f" "ELF\0\0\xff\x01", 8);
  db.prepare("INSERT INTO t VALUES (?, ?, ?)").bind_all(text, SqliteBlob{blob}, std::string()).run();
  auto row = db.prepare("SELECT s, b, e, typeof(s), typeof(b), typeof(e) FROM t");
  REQUIRE(row.step());
  CHECK(row.column_text(0) == text);
  CHECK(row.column_blob(1) == blob);
  CHECK(row.column_text(2).empty());
  CHECK(row.column_text(3) == "text");
  CHECK(row.column_text(4) == "blob");
  CHECK(row.column_text(5) == "text");  // an empty string, not NULL
}
