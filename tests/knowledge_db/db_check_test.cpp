// `hone db check`: finds what is wrong, and nothing when nothing is.
#include <doctest/doctest.h>

#include "knowledge_db/db_check.hpp"
#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

void write_database(const std::filesystem::path& file) {
  KnowledgeDb db(file);
  auto task = test::make_task("t");
  auto candidate = test::make_candidate("c");
  db.upsert_task(task);
  db.upsert_candidate(candidate);
  auto r = test::make_result(task.id, candidate.id, "emu:cpu", 1.0);
  db.add_result(r);
  db.offer_winner({task.id, "emu:cpu", candidate.id, r.id, 1.0, 2.0, ""});
  LessonRecord l;
  l.situation = "rmsnorm";
  l.action = "VEC=8";
  l.evidence = {r.id};
  db.add_lesson(l);
}

}  // namespace

TEST_CASE("db check: a whole database is ok") {
  test::TempDir dir;
  write_database(dir / "hone.db");
  auto r = check_database(dir / "hone.db");
  CHECK_MESSAGE(r.ok(), joined(r.problems));
  CHECK(r.version == KnowledgeDb::schema_version());
}

TEST_CASE("db check: dangling references, orphan rows and a stale lesson index are problems") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  write_database(file);
  std::string expected;
  {
    SqliteConnection raw(file);
    raw.exec("PRAGMA foreign_keys = OFF");
    SUBCASE("a result of a task that is gone") {
      raw.exec("DELETE FROM winners; DELETE FROM lesson_evidence; DELETE FROM tasks");
      expected = "1 rows of results reference missing rows of tasks";
    }
    SUBCASE("a winner whose result is another candidate's") {
      raw.exec(
          "INSERT INTO candidates (key, op, origin, variant, params, entry, source, launch) "
          "VALUES ('other', 'rmsnorm', 'template', '', '{}', 'k', 's', '{}');"
          "UPDATE winners SET candidate_id = (SELECT id FROM candidates WHERE key = 'other')");
      expected = "1 winners whose result is of another task, candidate or device, or did not pass";
    }
    SUBCASE("a device nobody recorded") {
      raw.exec("DELETE FROM devices");
      expected = "1 results whose device is missing from devices";
    }
    SUBCASE("a lesson index out of step") {
      raw.exec("DROP TRIGGER lessons_fts_update; UPDATE lessons SET action = 'something else entirely'");
      expected = "the lesson search index disagrees with the lessons";
    }
  }
  auto r = check_database(file);
  CHECK_FALSE(r.ok());
  CHECK_MESSAGE(joined(r.problems).find(expected) != std::string::npos, joined(r.problems));
}

TEST_CASE("db check: a damaged file is a problem found, a foreign one is the wrong file") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  write_database(file);
  std::string bytes = test::read_bytes(file);
  for (std::size_t i = 2 * 4096; i < 3 * 4096 && i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13);
  test::write_bytes(file, bytes);
  auto r = check_database(file);
  CHECK_FALSE(r.ok());

  test::write_bytes(dir / "notes.txt", "hello\n");
  CHECK_THROWS_AS(check_database(dir / "notes.txt"), DbError);
  CHECK_THROWS_AS(check_database(dir / "missing.db"), DbError);
  CHECK_FALSE(std::filesystem::exists(dir / "missing.db"));
}
