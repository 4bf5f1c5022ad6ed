// The HTML report on a real job's database: self-contained (no script, nothing fetched), one
// section per task with its three charts and its evaluations, escaped text. The page is
// rendered in headless Chromium by tests/cli/report_cli_test.cpp.
#include <doctest/doctest.h>

#include "core/json_file.hpp"
#include "support/job_cache.hpp"
#include "knowledge_db/test_support.hpp"
#include "report/html_report.hpp"
#include "report/svg_chart.hpp"

using namespace hone;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report: one self-contained page with a section per task, its charts and its evaluations") {
  test::JobCache job("report");
  KnowledgeDb db(job.db);
  LessonRecord lesson;
  lesson.situation = "rmsnorm <hidden=256> on sm_90";
  lesson.action = "prefer VEC=2 & BLOCK=128";
  lesson.tags = {"op/rmsnorm", "arch/sm_90"};
  const std::int64_t lesson_id = db.add_lesson(lesson);
  // The LLM proposer's prompt for the first task carried the lesson; the template search reads none.
  LlmAttemptRecord attempt;
  attempt.task_id = db.tasks().at(0).id;
  attempt.attempt = 1;
  attempt.model = "scripted";
  attempt.prompt = nlohmann::json::array({{{"role", "user"}, {"content", "write rmsnorm"}}});
  attempt.outcome = "unusable";
  attempt.reason = "no kernel";
  attempt.lessons_used = {lesson_id};
  db.add_llm_attempt(attempt);
  LessonRecord other = lesson;
  other.tags = {"op/gemv"};
  other.situation = "gemv only";
  db.add_lesson(other);

  const ReportData data = gather_report(db, {});
  REQUIRE(data.tasks.size() == 2);
  for (const auto& t : data.tasks) {
    CHECK(t.evaluations.size() == 2);
    CHECK(t.outcomes.at("pass") == 2);
    CHECK(t.timer == "cpu");
    CHECK(t.winner_ms > 0);
    CHECK(t.baseline_ms > 0);
    CHECK(t.timed_in_turns);  // the job re-timed every winner against the reference
    CHECK(t.roofline.known);
    CHECK(t.roofline.floor_ms == 0);  // never for CPU times
    REQUIRE(t.lessons.size() == 1);   // the gemv lesson does not apply
    CHECK(t.evaluations[1].best_ms <= t.evaluations[0].best_ms);
  }
  for (const auto& w : db.winners()) {
    bool shown = false;
    for (const auto& t : data.tasks) shown |= t.winner_ms == w.retimed_ms && t.baseline_ms == w.retimed_baseline_ms;
    CHECK(shown);
  }
  CHECK(data.tasks[0].lessons[0].prompts == 1);
  CHECK(data.tasks[1].lessons[0].prompts == 0);
  CHECK(data.tasks[0].roofline.bytes == 2 * 256 * 2 * 2 + 256 * 2);  // x and out, tokens=2 x 256 bf16, and w

  const std::string html = render_report_html(data);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<section class=\"task\"") == 2);
  CHECK(count(html, "<svg") == 6);  // three charts per task
  CHECK(count(html, "</svg>") == 6);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("://") == std::string::npos);  // nothing fetched, no link out
  CHECK(html.find("rmsnorm hidden=256 tokens=1..2") != std::string::npos);
  CHECK(html.find("rmsnorm &lt;hidden=256&gt; on sm_90") != std::string::npos);
  CHECK(html.find("prefer VEC=2 &amp; BLOCK=128") != std::string::npos);
  CHECK(html.find("gemv only") == std::string::npos);
  CHECK(count(html, "<h3>Lessons used</h3>") == 1);          // the first task's, in 1 LLM prompt
  CHECK(html.find("in 1 LLM prompt") != std::string::npos);
  CHECK(count(html, "<h3>Lessons that apply</h3>") == 1);    // the second task's: matching tags, unused
  CHECK(html.find("CPU times of the emulated kernels") != std::string::npos);
  CHECK(html.find("id=\"report-end\"") != std::string::npos);

  write_html_report(db, job.dir / "r.html");
  CHECK(read_text_file(job.dir / "r.html").size() > 5000);
}

TEST_CASE("report: GPU times get the roofline floor from the limits the job recorded for the device, or from the user") {
  test::TempDir dir;
  KnowledgeDb db(dir / "gpu.db");
  TaskRecord task = test::make_task("gpu");  // rmsnorm, hidden=4096, tokens=8
  db.upsert_task(task);
  CandidateRecord candidate = test::make_candidate("winner");
  db.upsert_candidate(candidate);
  const std::string h200 = "cuda:NVIDIA H200";
  ResultRecord r = test::make_result(task.id, candidate.id, h200, 0.01);
  db.add_result(r);
  db.offer_winner({task.id, h200, candidate.id, r.id, 0.01, 0.02, ""});
  const double bytes = 2 * 8 * 4096 * 2 + 4096 * 2;

  const ReportData before = gather_report(db, {});
  REQUIRE(before.tasks.size() == 1);
  CHECK(before.tasks[0].roofline.floor_ms == 0);
  CHECK(before.tasks[0].roofline.note.find("give the GPU's bandwidth") != std::string::npos);

  db.put_device_limits(h200, {{"copy_bandwidth_gbs", 4300.0}, {"peak_bandwidth_gbs", 4800.0}, {"peak_gflops", 2.0e6}});
  const ReportData after = gather_report(db, {});
  CHECK(after.tasks[0].roofline.bytes == bytes);
  CHECK(after.tasks[0].roofline.floor_ms == doctest::Approx(bytes / 4800e9 * 1e3));
  CHECK_MESSAGE(after.tasks[0].roofline.note.find("memory peak of 4800 GB/s (copy measured at 4300 GB/s)") != std::string::npos,
                after.tasks[0].roofline.note);
  CHECK(render_report_html(after).find("memory peak of 4800 GB/s") != std::string::npos);

  ReportOptions given;
  given.bandwidth_gbs = 3000;  // the user's figures come first
  CHECK(gather_report(db, given).tasks[0].roofline.floor_ms == doctest::Approx(bytes / 3000e9 * 1e3));
}

TEST_CASE("report: chart ticks are round numbers covering the data") {
  const auto small = nice_ticks(0.15);
  REQUIRE(small.size() == 4);
  for (std::size_t i = 0; i < small.size(); ++i) CHECK(small[i] == doctest::Approx(0.05 * i));
  CHECK(nice_ticks(7) == std::vector<double>{0, 2, 4, 6, 8});
  CHECK(nice_ticks(0).back() >= 1);
  const auto t = nice_ticks(123.4);
  CHECK(t.back() >= 123.4);
  CHECK(t.size() <= 8);
}
