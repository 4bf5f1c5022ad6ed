// The LLM proposer in real tuning jobs on the emu device, against the scripted server: cheating
// kernels, hidden-test failures, unusable replies and a failing endpoint, and what each attempt
// feeds back to the next one.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "knowledge_db/knowledge_db.hpp"
#include "support/scripted_llm_server.hpp"
#include "tuner/tuning_job.hpp"
#include "validator/isolated_build.hpp"

using namespace hone;
using hone::test::kernel_reply;
using hone::test::ScriptedLlmServer;
using hone::test::ScriptedReply;

namespace {

struct Notes : JobProgress {
  std::vector<std::string> lines;
  void note(const std::string& line) override { lines.push_back(line); }
  bool saw(const std::string& text) const {
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
};

std::string kernel_source(const std::string& name) {
  std::ifstream in(std::string(HONE_TEST_DATA_DIR) + "/llm/" + name);
  REQUIRE_MESSAGE(in, name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A reply with one of tests/data/llm's kernels, one thread per row in one block.
ScriptedReply kernel(const std::string& file) {
  return ScriptedReply::kernel(kernel_reply("rms_rows", kernel_source(file), {"1", "1", "1"}, {"tokens", "1", "1"}));
}

struct Job {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-llm-job-" + std::to_string(::getpid()));
  std::vector<double> waits;

  Job() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Job() { std::filesystem::remove_all(dir); }

  TuneOptions options(const ScriptedLlmServer& server, std::size_t attempts) {
    TuneOptions o;
    o.model_file = std::string(HONE_TEST_DATA_DIR) + "/llm/one_task.json";
    o.device = "emu";
    o.db_file = dir / "llm.db";
    o.proposers = {"llm"};
    o.llm.base_url = server.base_url();
    o.llm.model = "scripted-model";
    o.llm.key_env = "HONE_TEST_NO_SUCH_KEY_VARIABLE";
    o.llm.attempts = attempts;
    o.llm.timeout_s = 5;
    o.llm.sleep = [this](double s) { waits.push_back(s); };
    return o;
  }

  // The result of the candidate an attempt made.
  static ResultRecord result_of(KnowledgeDb& db, const LlmAttemptRecord& a) {
    REQUIRE(a.candidate_ids.size() == 1);
    for (const auto& r : db.results_for_task(a.task_id))
      if (r.candidate_id == a.candidate_ids[0]) return r;
    FAIL("attempt " << a.attempt << " has no result");
    return {};
  }
};

}  // namespace

TEST_CASE_FIXTURE(Job, "llm proposer: cheating kernels are rejected with their stage, refused source is never compiled, the honest kernel wins") {
  {
    KnowledgeDb db(dir / "llm.db");
    LessonRecord l;
    l.situation = "rmsnorm with short rows (hidden 256) on the emu device";
    l.action = "use one thread per row and no block barriers";
    l.tags = {"op/rmsnorm", "arch/sm_90"};
    db.add_lesson(l);
  }
  ScriptedReply last = kernel("rows.cu");
  nlohmann::json with_lesson = nlohmann::json::parse(last.content);
  with_lesson["lesson"] = {{"situation", "rmsnorm kernels on hone's emu device"},
                           {"action", "never write past the end of an output"},
                           {"tags", {"technique/bounds", "not a path!"}}};
  ScriptedLlmServer server({kernel("reads_file.cu"), kernel("keeps_state.cu"), kernel("visible_only.cu"),
                            kernel("writes_past_out.cu"), ScriptedReply::kernel(with_lesson)});
  TuneOptions o = options(server, 5);
  Notes notes;
  const std::size_t isolated_before = isolated_builds_started();
  const TuneReport report = run_tuning_job(o, notes);

  REQUIRE(report.tasks.size() == 1);
  CHECK(server.left() == 0);
  KnowledgeDb db(o.db_file);
  const auto attempts = db.llm_attempts(db.tasks().at(0).id);
  REQUIRE(attempts.size() == 5);
  for (const auto& a : attempts) CHECK(a.outcome == "candidates");

  const ResultRecord reads_file = result_of(db, attempts[0]);
  CHECK(reads_file.stage == "static");
  CHECK(reads_file.reason == "untrusted source names the host interface 'fopen'");
  const ResultRecord keeps_state = result_of(db, attempts[1]);
  CHECK(keeps_state.stage == "static");
  CHECK(keeps_state.reason.find("__device__ variable 'last_sum'") != std::string::npos);
  // The policy ran before any compiler saw them: no compile was recorded for either.
  CHECK_FALSE(db.compile(attempts[0].candidate_ids[0], "sm_90"));
  CHECK_FALSE(db.compile(attempts[1].candidate_ids[0], "sm_90"));

  const ResultRecord visible_only = result_of(db, attempts[2]);
  CHECK(visible_only.verdict == "fail");
  CHECK(visible_only.stage == "hidden");
  const ResultRecord writes_past = result_of(db, attempts[3]);
  CHECK(writes_past.verdict == "fail");
  CHECK_MESSAGE(writes_past.reason.find("out") != std::string::npos, writes_past.reason);
  const ResultRecord rows = result_of(db, attempts[4]);
  CHECK_MESSAGE(rows.verdict == "pass", rows.reason);

  // The three compiled LLM kernels, and the winner again for its re-timing, were each built in a
  // sandboxed compile process.
  CHECK(isolated_builds_started() - isolated_before == 4);
  CHECK(db.compile(attempts[4].candidate_ids[0], "sm_90"));

  // Each prompt says what became of the attempt before; the hidden tests only by name.
  CHECK(server.user_prompt(1).find("untrusted source names the host interface 'fopen'") != std::string::npos);
  const std::string after_hidden = server.user_prompt(3);
  CHECK(after_hidden.find("failed the hidden tests (their sizes and values are not shown)") != std::string::npos);
  CHECK(after_hidden.find(visible_only.reason) == std::string::npos);
  CHECK(server.user_prompt(4).find("failed at the") != std::string::npos);

  // Every prompt showed the stored lesson, and says so.
  for (std::size_t i = 0; i < 5; ++i) CHECK(server.user_prompt(i).find("use one thread per row and no block barriers") != std::string::npos);
  for (const auto& a : attempts) CHECK(a.lessons_used.size() >= 1);
  // The stored prompt is exactly what the server received.
  CHECK(attempts[2].prompt == server.requests()[2].body["messages"]);

  // The last reply's lesson is about attempt 4, kept with its evidence; the bad tag is dropped.
  REQUIRE(attempts[4].lesson_id != 0);
  const auto lesson = db.lesson(attempts[4].lesson_id);
  REQUIRE(lesson);
  CHECK(lesson->origin == "llm");
  CHECK(lesson->evidence == std::vector<std::int64_t>{writes_past.id});
  CHECK(std::find(lesson->tags.begin(), lesson->tags.end(), "op/rmsnorm") != lesson->tags.end());
  CHECK(attempts[4].lesson_note == "kept without the tags not a path!");

  // The honest kernel passed; the entry is it when it beat the reference timed in turns with it,
  // else the reference (on emu the two are CPU times a few percent apart: either may be faster).
  REQUIRE(report.tasks[0].winner_label);
  const TaskOutcome& outcome = report.tasks[0];
  const auto winner = db.winners().at(0);
  const std::string origin = db.candidate(winner.candidate_id)->origin;
  CHECK(winner.timed_in_turns());
  if (outcome.baseline_entry) {
    CHECK(origin == "reference");
    CHECK_MESSAGE(outcome.best_candidate.find("llm rms_rows: ") == 0, outcome.best_candidate);
    CHECK(winner.shown_ms() == winner.shown_baseline_ms());
  } else {
    CHECK(*outcome.winner_label == "llm rms_rows");
    CHECK(origin == "llm");
    CHECK(winner.shown_ms() < winner.shown_baseline_ms());
  }
}

TEST_CASE_FIXTURE(Job, "llm proposer: a right kernel slower than the reference in turns does not win: the reference is the entry") {
  ScriptedLlmServer server({kernel("slow.cu")});
  TuneOptions o = options(server, 1);
  Notes notes;
  const TuneReport report = run_tuning_job(o, notes);
  REQUIRE(report.tasks.size() == 1);
  const TaskOutcome& t = report.tasks[0];
  KnowledgeDb db(o.db_file);
  const ResultRecord slow = result_of(db, db.llm_attempts(db.tasks().at(0).id).at(0));
  REQUIRE_MESSAGE(slow.verdict == "pass", slow.reason);
  CHECK(t.baseline_entry);
  CHECK(t.baseline == "reference");
  CHECK_MESSAGE(t.best_candidate.find("llm rms_rows: 0.") == 0, t.best_candidate);
  CHECK_MESSAGE(t.best_candidate.find("x of the reference in turns") != std::string::npos, t.best_candidate);
  CHECK(t.winner_ms == t.baseline_ms);
  CHECK(notes.saw("the reference is the entry: the best candidate, llm rms_rows: "));
  const auto winner = db.winners().at(0);
  CHECK(db.candidate(winner.candidate_id)->origin == "reference");
  CHECK(winner.timed_in_turns());
  CHECK(winner.shown_ms() == winner.shown_baseline_ms());
  CHECK(report.all_won());  // a task whose entry is its baseline has a winner
}

TEST_CASE_FIXTURE(Job, "llm proposer: a kernel that hangs at another size of its bucket costs seconds, and the job goes on") {
  ScriptedLlmServer server({kernel("spins.cu"), kernel("rows.cu")});
  TuneOptions o = options(server, 2);
  Notes notes;
  const auto start = std::chrono::steady_clock::now();
  const TuneReport report = run_tuning_job(o, notes);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(report.tasks.size() == 1);
  KnowledgeDb db(o.db_file);
  const auto attempts = db.llm_attempts(db.tasks().at(0).id);
  REQUIRE(attempts.size() == 2);
  const ResultRecord spins = result_of(db, attempts[0]);
  CHECK(spins.stage == "hidden");
  CHECK_MESSAGE(spins.reason.find("hang: the candidate at tokens=3,hidden=256 in the hidden stage ran for 5 s without finishing") == 0,
                spins.reason);
  CHECK_MESSAGE(spins.reason.find("100 times the reference's") != std::string::npos, spins.reason);
  const ResultRecord rows = result_of(db, attempts[1]);
  CHECK_MESSAGE(rows.verdict == "pass", rows.reason);
  CHECK(report.tasks[0].winner_label);
  CHECK(seconds < 60);  // a hang costs its limit (5 s here), not the evaluation's 300 s
  MESSAGE("the job with a hanging kernel took " << seconds << " s");
}

TEST_CASE_FIXTURE(Job, "llm proposer: unusable replies are attempts spent with their reason fed back, and a failing endpoint ends the task's attempts") {
  nlohmann::json wrong_entry = kernel_reply("rms_cols", kernel_source("rows.cu"), {"1"}, {"tokens"});
  ScriptedReply rate_limited = ScriptedReply::http_error(429, "2");
  ScriptedLlmServer server({
      ScriptedReply::text("Sure! Here is a kernel that is very fast: it uses warps."),             // attempt 1
      rate_limited, ScriptedReply::text("{\"entry\": \"rms_rows\", \"source\": \"#inc", "length"),  // attempt 2
      ScriptedReply::kernel(wrong_entry),                                                           // attempt 3
      ScriptedReply::slow(3, ScriptedReply::text("late")), ScriptedReply::cut(ScriptedReply::text("cut")),
      ScriptedReply::http_error(503),                                                               // attempt 4
  });
  TuneOptions o = options(server, 6);
  o.llm.timeout_s = 0.5;
  o.llm.retries = 2;
  o.llm.reply_tokens = 300;
  Notes notes;
  const TuneReport report = run_tuning_job(o, notes);

  REQUIRE(report.tasks.size() == 1);
  CHECK_FALSE(report.tasks[0].winner_label);
  KnowledgeDb db(o.db_file);
  const auto attempts = db.llm_attempts(db.tasks().at(0).id);
  REQUIRE(attempts.size() == 4);
  CHECK(attempts[0].outcome == "unusable");
  CHECK(attempts[0].reason.find("not one JSON object") != std::string::npos);
  CHECK(attempts[1].outcome == "unusable");
  CHECK(attempts[1].requests == 2);
  CHECK(attempts[1].finish_reason == "length");
  CHECK(attempts[1].reason.find("cut off at the limit of 300 tokens") != std::string::npos);
  CHECK(attempts[2].outcome == "unusable");
  CHECK(attempts[2].reason.find("names the entry 'rms_cols'") != std::string::npos);
  CHECK(attempts[3].outcome == "request_failed");
  CHECK(attempts[3].requests == 3);
  CHECK(attempts[3].reason.find("HTTP 503") != std::string::npos);
  // Usage is recorded per attempt.
  CHECK(attempts[0].prompt_tokens == 120);
  CHECK(attempts[0].completion_tokens == 80);
  CHECK(attempts[1].prompt_tokens == 120);

  // The next prompt carries the reason: the LLM learns what was wrong with its reply.
  CHECK(server.user_prompt(1).find("attempt 1: no kernel was tried: the reply is not one JSON object") != std::string::npos);
  CHECK(server.user_prompt(3).find("cut off at the limit of 300 tokens") != std::string::npos);
  CHECK(server.user_prompt(4).find("names the entry 'rms_cols'") != std::string::npos);
  // Waits were recorded, not slept: Retry-After, then backoff for the timeout and the cut body.
  REQUIRE(waits.size() == 3);
  CHECK(waits[0] == doctest::Approx(2));
  CHECK(waits[1] == doctest::Approx(1));
  CHECK(waits[2] == doctest::Approx(2));
  // After the endpoint failed for good, nothing more was asked in this task.
  CHECK(server.requests().size() == 7);
  CHECK(notes.saw("no more LLM attempts for this task"));
}

TEST_CASE_FIXTURE(Job, "llm proposer: the job's request cap is shared by its tasks and stops the LLM with one note") {
  ScriptedLlmServer server({ScriptedReply::text("no kernel today"), ScriptedReply::text("nor tomorrow")});
  TuneOptions o = options(server, 3);
  o.model_file = std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json";  // two tasks
  o.llm.max_requests = 2;
  Notes notes;
  const TuneReport report = run_tuning_job(o, notes);
  CHECK(report.tasks.size() == 2);
  CHECK(server.requests().size() == 2);
  std::size_t cap_notes = 0;
  for (const auto& l : notes.lines) cap_notes += l.find("cap of 2 LLM requests is reached") != std::string::npos;
  CHECK(cap_notes == 1);
}

TEST_CASE("llm proposer: a job that asks for the LLM without an endpoint or model is refused before it starts") {
  const auto dir = std::filesystem::temp_directory_path() / ("hone-llm-noendpoint-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  TuneOptions o;
  o.model_file = std::string(HONE_TEST_DATA_DIR) + "/llm/one_task.json";
  o.device = "emu";
  o.db_file = dir / "x.db";
  o.proposers = {"template", "llm"};
  o.llm.base_url = "http://127.0.0.1:9/v1";
  o.llm.model = "";
  ::unsetenv("HONE_LLM_MODEL");
  JobProgress quiet;
  CHECK_THROWS_WITH(run_tuning_job(o, quiet), doctest::Contains("needs a model: --llm-model NAME or HONE_LLM_MODEL"));
  CHECK_FALSE(std::filesystem::exists(o.db_file));
}
