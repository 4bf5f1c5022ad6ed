#include <doctest/doctest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

using namespace hone;

namespace {

constexpr int kResultsPerWriter = 150;

// Writes results and offers each as winner; returns the error, "" when all went well.
std::string write_results(KnowledgeDb& db, std::int64_t task_id, std::int64_t candidate_id, int writer) {
  try {
    for (int i = 0; i < kResultsPerWriter; ++i) {
      double time_ms = 1.0 + writer + i * 0.001;
      auto r = test::make_result(task_id, candidate_id, "cuda:NVIDIA H200", time_ms);
      r.detail = {{"writer", writer}, {"i", i}};
      std::int64_t id = db.add_result(r);
      db.offer_winner({task_id, "cuda:NVIDIA H200", candidate_id, id, time_ms, 5.0, ""});
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void check_all_written(KnowledgeDb& db, std::int64_t task_id, int writers) {
  auto results = db.results_for_task(task_id);
  CHECK(results.size() == static_cast<std::size_t>(writers * kResultsPerWriter));
  std::set<std::pair<int, int>> seen;
  for (const auto& r : results) seen.insert({r.detail["writer"].get<int>(), r.detail["i"].get<int>()});
  CHECK(seen.size() == results.size());
  auto w = db.winner(task_id, "cuda:NVIDIA H200");
  REQUIRE(w);
  CHECK(w->time_ms == 1.0);  // writer 0's first result is the fastest of all
}

}  // namespace

TEST_CASE("two databases on one file, written from two threads at once, both succeed") {
  test::TempDir dir;
  auto file = dir / "hone.db";
  std::int64_t task_id = 0, candidate_id = 0;
  {
    KnowledgeDb setup(file);
    auto task = test::make_task("t");
    auto candidate = test::make_candidate("c");
    task_id = setup.upsert_task(task);
    candidate_id = setup.upsert_candidate(candidate);
  }
  KnowledgeDb a(file), b(file);
  std::string error_a = "not run", error_b = "not run";
  std::thread ta([&] { error_a = write_results(a, task_id, candidate_id, 0); });
  std::thread tb([&] { error_b = write_results(b, task_id, candidate_id, 1); });
  ta.join();
  tb.join();
  CHECK(error_a == "");
  CHECK(error_b == "");
  check_all_written(a, task_id, 2);
  KnowledgeDb reopened(file);
  check_all_written(reopened, task_id, 2);
}

TEST_CASE("one database shared by two threads serialises their transactions") {
  test::TempDir dir;
  KnowledgeDb db(dir / "hone.db");
  auto task = test::make_task("t");
  auto candidate = test::make_candidate("c");
  db.upsert_task(task);
  db.upsert_candidate(candidate);
  std::string error_a = "not run", error_b = "not run";
  std::thread ta([&] { error_a = write_results(db, task.id, candidate.id, 0); });
  std::thread tb([&] { error_b = write_results(db, task.id, candidate.id, 1); });
  ta.join();
  tb.join();
  CHECK(error_a == "");
  CHECK(error_b == "");
  check_all_written(db, task.id, 2);
}
