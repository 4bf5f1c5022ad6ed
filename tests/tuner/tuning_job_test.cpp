#include <doctest/doctest.h>

#include <unistd.h>

#include "knowledge_db/knowledge_db.hpp"
#include "tuner/tuning_job.hpp"

using namespace hone;

TEST_CASE("tuning job: a small model ends with a validated winner per task, and a rerun resumes from the database") {
  auto dir = std::filesystem::temp_directory_path() / ("hone-tune-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  TuneOptions o;
  o.model_file = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";
  o.device = "emu";
  o.db_file = dir / "tiny.db";
  o.budget = 3;
  o.worker_timeout_s = 120;
  std::vector<std::string> lines;
  TuneReport r = run_tuning_job(o, [&](const std::string& l) { lines.push_back(l); });
  REQUIRE(r.tasks.size() == 2);
  CHECK(r.device.kind == "emu");
  CHECK(r.all_won());
  for (const auto& t : r.tasks) {
    CHECK(t.tried == 3);
    CHECK(t.passed >= 1);
    CHECK(t.baseline_ms > 0);
    CHECK(t.winner_ms > 0);
    CHECK(t.task.layers.size() == 2);
  }
  {
    KnowledgeDb db(o.db_file);
    CHECK(db.winners().size() == 2);
    for (const auto& w : db.winners()) {
      // Every winner's result passed the reference check.
      auto results = db.results_for_task(w.task_id);
      auto it = std::find_if(results.begin(), results.end(), [&](const ResultRecord& x) { return x.id == w.result_id; });
      REQUIRE(it != results.end());
      CHECK(it->verdict == "pass");
      CHECK(it->stage == "timing");
      CHECK(it->timer == "cpu");
      CHECK(w.baseline_ms > 0);
    }
  }
  TuneReport again = run_tuning_job(o, {});
  for (const auto& t : again.tasks) CHECK(t.reused == 3);
  std::filesystem::remove_all(dir);
}
