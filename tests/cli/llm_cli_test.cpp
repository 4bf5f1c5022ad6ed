// `hone tune --proposer both` through the real binary against the scripted server in this test
// process: the agent fixes its own compile error, a cheating kernel is rejected with its stage,
// the winner is the LLM's and faster than the templates, every prompt is readable afterwards with
// the lessons it used, and the API key is nowhere: not in the database, the output or an export.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "knowledge_db/knowledge_db.hpp"
#include "support/run_command.hpp"
#include "support/scripted_llm_server.hpp"

using hone::test::kernel_reply;
using hone::test::ScriptedLlmServer;
using hone::test::ScriptedReply;

namespace {

const std::string kKey = "sk-hone-cli-test-7c4e19a0b2d35f68";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ScriptedReply kernel(const std::string& file, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json j = kernel_reply("rms_rows", read_file(std::string(HONE_TEST_DATA_DIR) + "/llm/" + file), {"1", "1", "1"},
                                  {"tokens", "1", "1"});
  j.update(extra);
  return ScriptedReply::kernel(j);
}

hone::test::CommandResult hone_cmd(const std::string& args, const std::string& env = "") {
  return hone::test::run_command(env + " " + std::string(HONE_BINARY_DIR) + "/hone " + args);
}

struct Scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hone-llm-cli-" + std::to_string(::getpid()));
  Scratch() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
};

// Every byte of every file under `root`.
std::string all_bytes_under(const std::filesystem::path& root) {
  std::string all;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file()) all += read_file(e.path());
  return all;
}

}  // namespace

TEST_CASE_FIXTURE(Scratch, "llm cli: the agent fixes its compile error, a cheat is rejected with its stage, the LLM's kernel wins, prompts stay readable, the key stays out") {
  const std::string db = (dir / "hone.db").string();
  auto r = hone_cmd("lessons add --db " + db +
                    " --situation 'rmsnorm with short rows (hidden 256) on the emu device'"
                    " --action 'one thread per row, no block barriers' --tags op/rmsnorm,arch/sm_90");
  REQUIRE_MESSAGE(r.code == 0, r.output);

  ScriptedLlmServer server({
      kernel("rows_compile_error.cu"),
      kernel("rows.cu", {{"lesson",
                          {{"situation", "an LLM kernel for rmsnorm calls a function CUDA does not have"},
                           {"action", "use rsqrtf for the inverse square root"},
                           {"tags", {"op/rmsnorm", "technique/intrinsics"}}}}}),
      kernel("reads_file.cu"),
      kernel("visible_only.cu"),
      kernel("writes_past_out.cu"),
  });
  const std::string env = "OPENAI_API_KEY=" + kKey + " OPENAI_BASE_URL=" + server.base_url() + " HONE_LLM_MODEL=scripted-model";
  const std::string tune = "tune --model " + std::string(HONE_TEST_DATA_DIR) +
                           "/llm/one_task.json --device emu --db " + db +
                           " --proposer both --budget 2 --llm-attempts 5 --show-prompt";
  const auto tuned = hone_cmd(tune, env);
  INFO(tuned.output);
  REQUIRE_MESSAGE(tuned.code == 0, tuned.output);
  CHECK(server.left() == 0);
  CHECK(tuned.output.find("llm prompt, rmsnorm hidden=256 tokens=1..4 attempt 1") != std::string::npos);
  // The key was sent to the server, as a bearer token, and only there.
  for (const auto& seen : server.requests()) CHECK(seen.authorization == "Bearer " + kKey);

  // Attempt by attempt, as `hone llm attempts` lists them.
  const auto listed = hone_cmd("llm attempts --json --db " + db);
  REQUIRE_MESSAGE(listed.code == 0, listed.output);
  const auto attempts = nlohmann::json::parse(listed.output);
  REQUIRE(attempts.size() == 5);
  auto candidate = [&](int i) { return attempts[i]["candidates"].at(0); };
  // 1: does not compile.
  CHECK(candidate(0)["stage"] == "static");
  CHECK(candidate(0)["reason"].get<std::string>().find("does not compile") != std::string::npos);
  CHECK(candidate(0)["reason"].get<std::string>().find("rsqrt_fast") != std::string::npos);
  // 2: the fix, correct and timed.
  CHECK(candidate(1)["verdict"] == "pass");
  CHECK(candidate(1)["time_ms"].get<double>() > 0);
  // 3: reads a file: refused by the source policy at the static stage, before any compiler saw it.
  CHECK(candidate(2)["verdict"] == "fail");
  CHECK(candidate(2)["stage"] == "static");
  CHECK(candidate(2)["reason"] == "untrusted source names the host interface 'fopen'");
  // 4: right only at the size it is shown: the hidden tests catch it.
  CHECK(candidate(3)["stage"] == "hidden");
  // 5: writes past its output: caught.
  CHECK(candidate(4)["verdict"] == "fail");

  // The second prompt carried the compiler's error on the first, and the stored lesson.
  const auto shown = hone_cmd("llm show " + attempts[1]["id"].dump() + " --json --db " + db);
  REQUIRE_MESSAGE(shown.code == 0, shown.output);
  const auto second = nlohmann::json::parse(shown.output);
  const std::string prompt = second["prompt"].dump();
  CHECK(prompt.find("does not compile") != std::string::npos);
  CHECK(prompt.find("rsqrt_fast") != std::string::npos);
  REQUIRE(second["lessons_used"].size() >= 1);
  CHECK(second["lessons"][0]["action"] == "one thread per row, no block barriers");
  CHECK(prompt.find("one thread per row, no block barriers") != std::string::npos);
  CHECK(second["prompt"] == server.requests()[1].body["messages"]);
  // Its lesson about attempt 1 was kept, and later prompts show it.
  CHECK(second["lesson_id"].get<std::int64_t>() > 0);
  CHECK(server.user_prompt(2).find("use rsqrtf for the inverse square root") != std::string::npos);
  // Later attempts refine the best correct kernel so far: the LLM's own when it timed faster than the
  // reference, else the reference alone. On emu the two take about the same CPU time, so which one
  // it is differs from run to run; the prompt must say the one the database says.
  double reference_ms = 0;
  {
    hone::KnowledgeDb kdb(db);
    for (const auto& res : kdb.results_for_task(kdb.winners().at(0).task_id))
      if (reference_ms == 0 && kdb.candidate(res.candidate_id)->origin == "reference") reference_ms = res.time_ms;
  }
  REQUIRE(reference_ms > 0);
  const bool llm_best = candidate(1)["time_ms"].get<double>() < reference_ms;
  CHECK((server.user_prompt(2).find("Best correct kernel so far: llm rms_rows") != std::string::npos) == llm_best);
  if (!llm_best) CHECK(server.user_prompt(2).find("None besides the reference.") != std::string::npos);
  const auto text = hone_cmd("llm show " + attempts[1]["id"].dump() + " --db " + db);
  CHECK(text.code == 0);
  CHECK(text.output.find("lessons in the prompt: #1") != std::string::npos);
  CHECK(text.output.find("=== prompt, exactly as sent ===") != std::string::npos);

  // The LLM's kernel is the best candidate, faster than every template's. It is the entry when
  // it also beat the reference timed in turns with it; else the reference is (on emu the two
  // take about the same CPU time), and the table names the LLM's kernel as the best that lost.
  double best_template = 0, winner_ms = 0, baseline_ms = 0;
  std::string winner_origin;
  {
    hone::KnowledgeDb kdb(db);
    const auto w = kdb.winners().at(0);
    winner_origin = kdb.candidate(w.candidate_id)->origin;
    winner_ms = w.shown_ms();
    baseline_ms = w.shown_baseline_ms();
    CHECK(w.timed_in_turns());
    for (const auto& res : kdb.results_for_task(w.task_id))
      if (res.verdict == "pass" && kdb.candidate(res.candidate_id)->origin == "template" &&
          (best_template == 0 || res.time_ms < best_template))
        best_template = res.time_ms;
  }
  MESSAGE("entry " << winner_origin << " " << winner_ms << " ms, baseline " << baseline_ms << " ms, best template "
                   << best_template << " ms");
  REQUIRE(best_template > 0);
  CHECK(candidate(1)["time_ms"].get<double>() < best_template);
  CHECK(winner_ms <= baseline_ms);
  if (winner_origin == "llm") {
    CHECK(tuned.output.find("llm rms_rows  ") != std::string::npos);
    CHECK(winner_ms < baseline_ms);
  } else {
    CHECK(winner_origin == "reference");
    CHECK(tuned.output.find("the baseline, reference: no candidate beat it (best: llm rms_rows: ") != std::string::npos);
  }

  // The key: in no byte of the database (WAL included), no output, no export.
  const auto exported = hone_cmd("export --db " + db + " --out " + (dir / "cache").string());
  REQUIRE_MESSAGE(exported.code == 0, exported.output);
  CHECK(std::filesystem::exists(dir / "cache"));
  CHECK(all_bytes_under(dir / "cache").find(kKey) == std::string::npos);
  CHECK(all_bytes_under(dir).find(kKey) == std::string::npos);
  for (const auto* out : {&tuned.output, &listed.output, &shown.output, &text.output, &exported.output})
    CHECK(out->find(kKey) == std::string::npos);
}

TEST_CASE_FIXTURE(Scratch, "llm cli: bad LLM flags and a missing endpoint exit 2 with the reason, and there is no flag for the key") {
  const std::string model = " --model " + std::string(HONE_TEST_DATA_DIR) + "/llm/one_task.json --device emu --db " +
                            (dir / "x.db").string();
  const std::string no_env = "env -u OPENAI_BASE_URL -u HONE_LLM_MODEL";
  auto r = hone_cmd("tune" + model + " --proposer llm", no_env);
  CHECK(r.code == 2);
  CHECK(r.output.find("--llm-base-url URL or OPENAI_BASE_URL") != std::string::npos);
  r = hone_cmd("tune" + model + " --proposer llm --llm-base-url http://127.0.0.1:9/v1", no_env);
  CHECK(r.code == 2);
  CHECK(r.output.find("--llm-model NAME or HONE_LLM_MODEL") != std::string::npos);
  r = hone_cmd("tune" + model + " --proposer llm --llm-base-url http://127.0.0.1:9/v1 --llm-model m --llm-attempts 0");
  CHECK(r.code == 2);
  CHECK(r.output.find("--llm-attempts must be at least 1") != std::string::npos);
  r = hone_cmd("tune" + model + " --proposer gpt");
  CHECK(r.code == 2);
  CHECK(r.output.find("expected template, llm or both") != std::string::npos);
  CHECK(hone_cmd("tune" + model + " --proposer llm --llm-key sk-123").code == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "x.db"));
  r = hone_cmd("llm attempts --db " + (dir / "missing.db").string());
  CHECK(r.code == 2);
  CHECK(r.output.find("no such database") != std::string::npos);
}
