#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "knowledge_db/db_merge.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "tuner/tuning_job.hpp"

using namespace hone;

namespace {

// Records what the job reports; stops it after `stop_after` candidates when asked to.
struct Recorder : JobProgress {
  std::vector<std::string> notes;
  std::size_t started = 0, candidates = 0, reused = 0, finished = 0;
  std::size_t stop_after = 0;
  std::atomic<bool> stop{false};
  void note(const std::string& line) override { notes.push_back(line); }
  void task_started(std::size_t, std::size_t, const Task&, std::size_t) override { ++started; }
  void candidate_done(const std::string&, const ResultRecord&, bool was_reused) override {
    ++candidates;
    reused += was_reused;
    if (stop_after && candidates >= stop_after) stop = true;
  }
  void task_finished(const TaskOutcome&) override { ++finished; }
};

struct Scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-tune-" + std::to_string(::getpid()));
  Scratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }

  TuneOptions options(const std::string& db, std::size_t budget) const {
    TuneOptions o;
    o.model_file = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";
    o.device = "emu";
    o.db_file = dir / db;
    o.budget = budget;
    return o;
  }
};

// Task key -> the winning candidate's key: comparable across database files.
std::map<std::string, std::string> winners_by_task(const std::filesystem::path& db_file) {
  KnowledgeDb db(db_file);
  std::map<std::string, std::string> out;
  for (const auto& w : db.winners()) out[db.task(w.task_id)->key] = db.candidate(w.candidate_id)->key;
  return out;
}

// Task key -> the keys of every candidate the task evaluated (its baselines among them) and
// whether each passed: what the search did, decided by the seed alone.
std::map<std::string, std::set<std::string>> searched_by_task(const std::filesystem::path& db_file) {
  KnowledgeDb db(db_file);
  std::map<std::string, std::set<std::string>> out;
  for (const auto& t : db.tasks())
    for (const auto& r : db.results_for_task(t.id)) out[t.key].insert(db.candidate(r.candidate_id)->key + " " + r.verdict);
  return out;
}

}  // namespace

TEST_CASE_FIXTURE(Scratch, "tuning job: a small model ends with a validated winner per task, re-timed against the baseline, "
                           "never slower than it") {
  TuneOptions o = options("tiny.db", 3);
  Recorder r;
  TuneReport report = run_tuning_job(o, r);
  REQUIRE(report.tasks.size() == 2);
  CHECK(report.device.kind == "emu");
  CHECK(report.all_won());
  CHECK(r.started == 2);
  CHECK(r.finished == 2);
  CHECK(r.candidates == 6);
  for (const auto& t : report.tasks) {
    CHECK(t.tried == 3);
    CHECK(t.passed >= 1);
    CHECK(t.baseline_ms > 0);
    CHECK(t.winner_ms > 0);
    CHECK(t.winner_ms <= t.baseline_ms);  // the winner beat the baseline, or is it
    CHECK(t.baseline == "reference");
    CHECK(t.task.layers.size() == 2);
  }
  KnowledgeDb db(o.db_file);
  CHECK(db.winners().size() == 2);
  for (const auto& w : db.winners()) {
    auto results = db.results_for_task(w.task_id);
    auto it = std::find_if(results.begin(), results.end(), [&](const ResultRecord& x) { return x.id == w.result_id; });
    REQUIRE(it != results.end());
    CHECK(it->verdict == "pass");
    CHECK(it->timer == "cpu");
    CHECK(it->stage == "timing");
    // The figures shown to the user come from timing the search's winner in turns with the
    // reference: the winner's when it was faster, else the reference's own, as the entry.
    REQUIRE(w.timed_in_turns());
    CHECK(w.shown_ms() <= w.shown_baseline_ms());
    const bool baseline_entry = db.candidate(w.candidate_id)->origin == "reference";
    auto retimed = std::find_if(results.begin(), results.end(), [&](const ResultRecord& x) { return x.is_retiming(); });
    REQUIRE(retimed != results.end());
    CHECK(retimed->detail["against"] == "reference");
    CHECK(retimed->detail["baseline"]["median_ms"].get<double>() == doctest::Approx(w.retimed_baseline_ms));
    if (baseline_entry) {
      CHECK(w.shown_ms() == w.shown_baseline_ms());
      CHECK(retimed->time_ms >= w.retimed_baseline_ms);  // the best candidate, not faster in turns
    } else {
      CHECK(retimed->candidate_id == w.candidate_id);
      CHECK(retimed->time_ms == doctest::Approx(w.retimed_ms));
      CHECK(w.retimed_ms < w.retimed_baseline_ms);
    }
  }
}

TEST_CASE_FIXTURE(Scratch, "tuning job: a rerun of the same plan redoes nothing, a new plan reuses stored results") {
  TuneOptions o = options("resume.db", 2);
  Recorder first;
  run_tuning_job(o, first);
  const std::size_t results_before = [&] {
    KnowledgeDb db(o.db_file);
    std::size_t n = 0;
    for (const auto& t : db.tasks()) n += db.results_for_task(t.id).size();
    return n;
  }();
  Recorder again;
  TuneReport r2 = run_tuning_job(o, again);
  for (const auto& t : r2.tasks) {
    CHECK(t.from_earlier_run);
    CHECK(t.winner_label.has_value());
  }
  CHECK(again.candidates == 0);
  {
    KnowledgeDb db(o.db_file);
    std::size_t n = 0;
    for (const auto& t : db.tasks()) n += db.results_for_task(t.id).size();
    CHECK(n == results_before);
  }
  o.budget = 3;  // another plan: the two candidates of the first run are reused, one is new
  Recorder bigger;
  run_tuning_job(o, bigger);
  CHECK(bigger.candidates == 6);
  CHECK(bigger.reused == 4);
}

TEST_CASE_FIXTURE(Scratch, "tuning job: interrupted after a candidate, the rerun continues without redoing it") {
  TuneOptions o = options("interrupt.db", 3);
  Recorder r;
  r.stop_after = 2;
  o.stop = &r.stop;
  TuneReport first = run_tuning_job(o, r);
  CHECK(first.interrupted);
  CHECK_FALSE(first.all_won());
  CHECK(r.candidates == 2);
  o.stop = nullptr;
  Recorder rest;
  TuneReport second = run_tuning_job(o, rest);
  CHECK(second.all_won());
  CHECK(rest.reused == 2);
  CHECK(rest.candidates == 6);
}

TEST_CASE_FIXTURE(Scratch, "tuning job: two shards cover every task once and together do the search of one run") {
  // What each task evaluated is decided by the seed alone, so it must agree exactly. Which kernel
  // becomes the entry is not: the candidate and the reference are timed against each other, and
  // on emu, where the two can be within noise of each other, either may win a given run.
  TuneOptions whole = options("whole.db", 1);
  Recorder r;
  run_tuning_job(whole, r);
  std::map<std::string, std::set<std::string>> sharded;
  for (std::size_t i = 0; i < 2; ++i) {
    TuneOptions part = options("shard" + std::to_string(i) + ".db", 1);
    part.shard = {i, 2};
    Recorder rs;
    CHECK(run_tuning_job(part, rs).tasks.size() == 1);
    CHECK(winners_by_task(part.db_file).size() == 1);
    auto searched = searched_by_task(part.db_file);
    CHECK(searched.size() == 1);
    sharded.insert(searched.begin(), searched.end());
  }
  const auto whole_search = searched_by_task(whole.db_file);
  CHECK(whole_search.size() == 2);
  CHECK(sharded == whole_search);
  merge_databases({dir / "shard0.db", dir / "shard1.db"}, dir / "merged.db");
  CHECK(searched_by_task(dir / "merged.db") == whole_search);
  CHECK(winners_by_task(dir / "merged.db").size() == 2);
  // The merged database resumes like the shards would: nothing left to do for that plan.
  TuneOptions resumed = options("merged.db", 1);
  Recorder rr;
  for (const auto& t : run_tuning_job(resumed, rr).tasks) CHECK(t.from_earlier_run);
}

TEST_CASE_FIXTURE(Scratch, "tuning job: device none compiles and checks, runs nothing and names no winner") {
  TuneOptions o = options("none.db", 4);
  o.device = "none";
  Recorder r;
  TuneReport report = run_tuning_job(o, r);
  CHECK(report.device.kind == "none");
  CHECK(report.all_won());
  for (const auto& t : report.tasks) {
    CHECK(t.static_only);
    CHECK(t.passed == 4);
    CHECK_FALSE(t.winner_label.has_value());
  }
  KnowledgeDb db(o.db_file);
  CHECK(db.winners().empty());
}

TEST_CASE_FIXTURE(Scratch, "tuning job: without an architecture emu and none check for sm_90, and the plan is the one sm_90 names") {
  TuneOptions o = options("arch.db", 1);
  REQUIRE(o.arch.empty());
  Recorder r;
  const TuneReport first = run_tuning_job(o, r);
  REQUIRE(first.all_won());
  for (const auto& t : KnowledgeDb(o.db_file).tasks()) CHECK(t.arch == "sm_90");
  o.arch = "sm_90";
  Recorder again;
  for (const auto& t : run_tuning_job(o, again).tasks) CHECK(t.from_earlier_run);
}

TEST_CASE_FIXTURE(Scratch, "tuning job: says before the first task how long it expects to take, and leaves done tasks out") {
  auto expected_line = [](const Recorder& r) {
    for (std::size_t i = 0; i < r.notes.size(); ++i)
      if (r.notes[i].rfind("expected time on emu:", 0) == 0) return i;
    return r.notes.size();
  };
  TuneOptions o = options("estimate.db", 1);
  Recorder first;
  run_tuning_job(o, first);
  const std::size_t at = expected_line(first);
  REQUIRE_MESSAGE(at + 1 < first.notes.size(), "no expected time among the notes");
  CHECK_MESSAGE(first.notes[at].find("for 2 tasks, 4 kernels") != std::string::npos, first.notes[at]);
  CHECK_MESSAGE(first.notes[at + 1].find("at most 2 kernels (the candidates and the reference) per task") != std::string::npos,
                first.notes[at + 1]);
  // The same job again: every task is done under this plan, nothing is left to expect.
  Recorder again;
  run_tuning_job(o, again);
  const std::size_t at2 = expected_line(again);
  REQUIRE(at2 + 1 < again.notes.size());
  CHECK_MESSAGE(again.notes[at2].find("under 1 s for 0 tasks, 0 kernels") != std::string::npos, again.notes[at2]);
  CHECK_MESSAGE(again.notes[at2 + 1].find("2 tasks an earlier run finished under this plan are left out") != std::string::npos, again.notes[at2 + 1]);
}

TEST_CASE_FIXTURE(Scratch, "tuning job: a task whose evaluations would not fit in this machine's memory is not run, "
                           "says why before the first task, and is left for a run on a larger machine") {
  TuneOptions o = options("memory.db", 1);
  o.model_file = std::string(HONE_TEST_DATA_DIR) + "/shapes/beyond_memory.json";
  Recorder r;
  const TuneReport report = run_tuning_job(o, r);
  REQUIRE(report.tasks.size() == 2);
  CHECK(report.tasks[0].winner_label.has_value());
  const TaskOutcome& huge = report.tasks[1];
  CHECK_FALSE(huge.winner_label.has_value());
  CHECK(huge.tried == 0);
  CHECK_MESSAGE(huge.error.rfind("not run: an evaluation at this shape needs about", 0) == 0, huge.error);
  CHECK_MESSAGE(huge.error.find("TB of this machine's memory (on emu") != std::string::npos, huge.error);
  bool told = false;
  for (const auto& line : r.notes) told |= line.rfind("1 tasks will not run on this machine, the first rmsnorm", 0) == 0;
  CHECK(told);
  for (const auto& line : r.notes)
    if (line.rfind("expected time on emu:", 0) == 0) CHECK_MESSAGE(line.find("for 1 tasks, 2 kernels") != std::string::npos, line);

  Recorder again;
  const TuneReport rerun = run_tuning_job(o, again);
  REQUIRE(rerun.tasks.size() == 2);
  CHECK(rerun.tasks[0].from_earlier_run);
  CHECK_FALSE(rerun.tasks[1].from_earlier_run);
}
