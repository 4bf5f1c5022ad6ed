#include <doctest/doctest.h>

#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {
std::int64_t table_count(SqliteConnection& db, const std::string& name) {
  auto row = db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
  row.bind(1, name);
  REQUIRE(row.step());
  return row.column_int64(0);
}
}  // namespace

TEST_CASE("a new file gets hone's latest schema, its application id and WAL") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  { KnowledgeDb kdb(file); }
  SqliteConnection db(file);
  CHECK(db.query_int("PRAGMA user_version") == KnowledgeDb::schema_version());
  CHECK(KnowledgeDb::schema_version() == static_cast<int>(schema_migrations().size()));
  CHECK(db.query_int("PRAGMA application_id") == kHoneApplicationId);
  auto mode = db.prepare("PRAGMA journal_mode");
  REQUIRE(mode.step());
  CHECK(mode.column_text(0) == "wal");
  for (const char* table : {"tasks", "candidates", "compiles", "results", "winners"}) {
    CAPTURE(table);
    CHECK(table_count(db, table) == 1);
  }
  CHECK(db.query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                     "name = 'results_by_task_candidate_device'") == 1);
}

TEST_CASE("a failed migration leaves the database at the previous version") {
  test::TempDir dir;
  SqliteConnection db(dir / "m.db");
  const std::vector<std::string> steps = {
      "CREATE TABLE a (x INTEGER)",
      "CREATE TABLE b (x INTEGER); INSERT INTO no_such_table VALUES (1)",
  };
  CHECK_THROWS_AS(migrate(db, steps), DbError);
  CHECK_FALSE(db.in_transaction());
  CHECK(db.query_int("PRAGMA user_version") == 1);
  CHECK(table_count(db, "a") == 1);
  CHECK(table_count(db, "b") == 0);
}

TEST_CASE("migrating applies only the missing steps") {
  test::TempDir dir;
  SqliteConnection db(dir / "m.db");
  std::vector<std::string> steps = {"CREATE TABLE a (x INTEGER)"};
  migrate(db, steps);
  migrate(db, steps);  // would fail with "table a already exists" if step 1 ran again
  steps.push_back("CREATE TABLE b (x INTEGER)");
  migrate(db, steps);
  CHECK(db.query_int("PRAGMA user_version") == 2);
  CHECK(table_count(db, "b") == 1);
}

TEST_CASE("migrating refuses a database newer than the steps it knows") {
  test::TempDir dir;
  auto file = dir / "m.db";
  SqliteConnection db(file);
  db.exec("PRAGMA user_version = 5");
  const std::vector<std::string> steps = {"CREATE TABLE a (x INTEGER)"};
  CHECK_THROWS_WITH_AS(migrate(db, steps),
                       (file.string() + ": written by a newer hone (schema 5, this hone knows up to 1)").c_str(),
                       DbError);
  CHECK(table_count(db, "a") == 0);
}
