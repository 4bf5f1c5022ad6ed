#include "knowledge_db/db_check.hpp"

#include <functional>

#include <sqlite3.h>

#include "knowledge_db/knowledge_db.hpp"
#include "knowledge_db/schema.hpp"
#include "knowledge_db/sqlite_connection.hpp"

namespace hone {

namespace {

// Rows that a query counts, as one problem line when there are any.
void count_rows(SqliteConnection& db, DbCheckReport& r, const std::string& what, const std::string& sql) {
  std::int64_t n = db.query_int(sql);
  if (n > 0) r.problems.push_back(std::to_string(n) + " " + what);
}

bool has_table(SqliteConnection& db, const std::string& name) {
  auto row = db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = ?");
  row.bind(1, name);
  return row.step() && row.column_int64(0) > 0;
}

}  // namespace

DbCheckReport check_database(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) throw DbError(file.string() + ": no such database");
  SqliteConnection db(file);
  const int latest = KnowledgeDb::schema_version();
  DbCheckReport r;
  // A file whose schema pages are damaged cannot show whose it is; finding that is the check's
  // job, so it is a problem found rather than the wrong file.
  int rc = sqlite3_exec(db.handle(), "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    r.problems.push_back(std::string("the schema cannot be read: ") + sqlite3_errmsg(db.handle()));
    return r;
  }
  check_hone_database(db, latest);
  // A damaged file can fail any of the checks below: each failure is a problem found, and the
  // checks after it still run.
  auto attempt = [&](const std::string& name, const std::function<void()>& check) {
    try {
      check();
    } catch (const std::exception& e) {
      r.problems.push_back(name + " could not run: " + e.what());
    }
  };

  attempt("integrity_check", [&] {
    auto row = db.prepare("PRAGMA integrity_check(100)");
    while (row.step()) {
      std::string line = row.column_text(0);
      if (line != "ok") r.problems.push_back("integrity_check: " + line);
    }
  });

  attempt("the schema version check", [&] {
    r.version = static_cast<int>(db.query_int("PRAGMA user_version"));
    if (r.version == 0) {
      r.problems.push_back("schema version 0: the file holds no hone schema (an empty file)");
      return;
    }
    if (r.version < latest)
      r.notes.push_back("schema version " + std::to_string(r.version) + "; this hone writes " + std::to_string(latest) +
                        " and migrates the file when it next opens it for work");
    std::vector<std::string> expected = {"tasks", "candidates", "compiles", "results", "winners"};
    if (r.version >= 2)
      for (const char* t : {"devices", "op_specs", "lessons", "lesson_evidence", "lesson_vectors", "lessons_fts"})
        expected.push_back(t);
    for (const auto& t : expected)
      if (!has_table(db, t)) r.problems.push_back("schema version " + std::to_string(r.version) + " but table '" + t + "' is missing");
  });
  if (r.version == 0) return r;

  attempt("foreign_key_check", [&] {
    auto row = db.prepare("SELECT \"table\", parent, count(*) FROM pragma_foreign_key_check GROUP BY 1, 2 ORDER BY 1, 2");
    while (row.step())
      r.problems.push_back(std::to_string(row.column_int64(2)) + " rows of " + row.column_text(0) +
                           " reference missing rows of " + row.column_text(1));
  });

  // Relations no foreign key can state.
  attempt("the winners check", [&] {
    count_rows(db, r, "winners whose result is of another task, candidate or device, or did not pass",
               "SELECT count(*) FROM winners w JOIN results r ON r.id = w.result_id WHERE r.task_id <> w.task_id OR "
               "r.candidate_id <> w.candidate_id OR r.device <> w.device OR r.verdict <> 'pass'");
  });
  if (r.version >= 2) {
    attempt("the lookup tables check", [&] {
      count_rows(db, r, "tasks whose op spec hash is missing from op_specs",
                 "SELECT count(*) FROM tasks WHERE spec_hash <> '' AND spec_hash NOT IN (SELECT hash FROM op_specs)");
      count_rows(db, r, "results whose device is missing from devices",
                 "SELECT count(*) FROM results WHERE device NOT IN (SELECT name FROM devices)");
      count_rows(db, r, "active lessons marked as superseded by another",
                 "SELECT count(*) FROM lessons WHERE status = 'active' AND superseded_by IS NOT NULL");
    });
    attempt("the lesson index check", [&] {
      // FTS5's own check compares the index with the lessons table. It is a write statement in
      // form only; the transaction is rolled back all the same.
      SqliteTransaction check(db);
      try {
        db.exec("INSERT INTO lessons_fts (lessons_fts, rank) VALUES ('integrity-check', 1)");
      } catch (const DbError& e) {
        r.problems.push_back(std::string("the lesson search index disagrees with the lessons: ") + e.what());
      }
    });
  }
  return r;
}

}  // namespace hone
