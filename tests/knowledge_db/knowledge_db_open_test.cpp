#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "knowledge_db/sqlite_connection.hpp"
#include "test_support.hpp"

using namespace hone;

namespace {

std::string open_error(const std::filesystem::path& file) {
  try {
    KnowledgeDb db(file);
  } catch (const DbError& e) {
    return e.what();
  }
  return "";
}

bool has_sidecar_files(const std::filesystem::path& file) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    if (std::filesystem::exists(file.string() + suffix)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a database keeps its data when reopened") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  std::int64_t task_id = 0, candidate_id = 0, result_id = 0;
  {
    KnowledgeDb db(file);
    CHECK(db.file() == file);
    auto task = test::make_task("t1");
    auto candidate = test::make_candidate("c1");
    task_id = db.upsert_task(task);
    candidate_id = db.upsert_candidate(candidate);
    auto result = test::make_result(task_id, candidate_id, "cuda:NVIDIA H200", 0.25);
    result_id = db.add_result(result);
    CHECK(db.offer_winner({task_id, "cuda:NVIDIA H200", candidate_id, result_id, 0.25, 0.5, ""}));
  }
  KnowledgeDb db(file);
  auto task = db.task(task_id);
  REQUIRE(task);
  CHECK(task->key == "t1");
  CHECK(task->layers == test::make_task("t1").layers);
  auto candidate = db.candidate(candidate_id);
  REQUIRE(candidate);
  CHECK(candidate->source == test::make_candidate("c1").source);
  auto result = db.latest_result(task_id, candidate_id, "cuda:NVIDIA H200");
  REQUIRE(result);
  CHECK(result->id == result_id);
  auto winner = db.winner(task_id, "cuda:NVIDIA H200");
  REQUIRE(winner);
  CHECK(winner->result_id == result_id);
  CHECK(winner->baseline_ms == 0.5);
}

TEST_CASE("a database from a newer hone is refused, naming both versions") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  { KnowledgeDb db(file); }
  const int newer = KnowledgeDb::schema_version() + 1;
  {
    SqliteConnection raw(file);
    raw.exec("PRAGMA user_version = " + std::to_string(newer));
  }
  const std::string before = test::read_bytes(file);
  CHECK(open_error(file) == file.string() + ": written by a newer hone (schema " + std::to_string(newer) +
                                ", this hone knows up to " + std::to_string(KnowledgeDb::schema_version()) + ")");
  CHECK(test::read_bytes(file) == before);
}

TEST_CASE("a file that is not SQLite is refused and left byte for byte unchanged") {
  test::TempDir dir;
  auto file = dir / "notes.db";
  SUBCASE("a short text file") { test::write_bytes(file, "these are my notes, not a database\n"); }
  SUBCASE("a text file longer than a page") { test::write_bytes(file, std::string(10000, 'x') + "\n"); }
  SUBCASE("a JSON file") { test::write_bytes(file, R"({"hone": "cache", "kernels": []})"); }
  const std::string before = test::read_bytes(file);
  std::string error = open_error(file);
  CHECK(error.rfind(file.string() + ": ", 0) == 0);
  CHECK(error.find("not a hone database") != std::string::npos);
  CHECK(test::read_bytes(file) == before);
  CHECK_FALSE(has_sidecar_files(file));
}

TEST_CASE("another program's SQLite database is refused and left unchanged") {
  test::TempDir dir;
  auto file = dir / "other.db";
  {
    SqliteConnection raw(file);
    raw.exec("CREATE TABLE bookmarks (url TEXT); INSERT INTO bookmarks VALUES ('https://example.org')");
  }
  const std::string before = test::read_bytes(file);
  std::string error = open_error(file);
  CHECK(error.rfind(file.string() + ": not a hone database", 0) == 0);
  CHECK(test::read_bytes(file) == before);

  SUBCASE("also when it sets an application id of its own") {
    {
      SqliteConnection raw(file);
      raw.exec("PRAGMA application_id = 1234; DROP TABLE bookmarks");
    }
    CHECK(open_error(file).rfind(file.string() + ": not a hone database", 0) == 0);
  }
}

TEST_CASE("an empty file becomes a hone database") {
  test::TempDir dir;
  auto file = dir / "empty.db";
  test::write_bytes(file, "");
  KnowledgeDb db(file);
  auto task = test::make_task("t");
  CHECK(db.upsert_task(task) > 0);
}

TEST_CASE("a file in a missing folder gives a DbError naming the file") {
  test::TempDir dir;
  auto file = dir / "no/such/folder/hone.db";
  std::string error = open_error(file);
  CHECK(error.rfind(file.string() + ": ", 0) == 0);
}

TEST_CASE("foreign keys are enforced") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto result = test::make_result(41, 42, "emu:cpu", 1.0);  // neither task nor candidate exists
  CHECK_THROWS_AS(db.add_result(result), DbError);
  CHECK(db.results_for_task(41).empty());
}

TEST_CASE("several objects creating the same new file at once all open it") {
  for (int round = 0; round < 10; ++round) {
    test::TempDir dir;
    auto file = dir / "hone.db";
    std::atomic<int> opened{0};
    std::vector<std::string> errors(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        try {
          KnowledgeDb db(file);
          auto task = test::make_task("shared");
          db.upsert_task(task);
          ++opened;
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(i)] = e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) CHECK(e == "");
    CHECK(opened == 4);
    CHECK(KnowledgeDb(file).tasks().size() == 1);
  }
}
