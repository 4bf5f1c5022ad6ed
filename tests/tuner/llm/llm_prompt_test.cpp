// The prompt of one LLM attempt: what it must carry, and how it keeps to its size budget.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "tuner/llm/llm_prompt.hpp"

using namespace hone;

namespace {

struct Fixture {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  std::vector<Task> tasks =
      tasks_from_model(load_model_shapes(std::string(HONE_TEST_DATA_DIR) + "/shapes/tiny.json"), templates_root(), {}, "sm_90");

  PromptInput input() const {
    PromptInput in;
    in.op = &op;
    in.task = &tasks.back();
    in.device.kind = "emu";
    in.device.name = "test cpu";
    in.device.timer = "cpu";
    in.reference_ms = 2.0;
    in.attempt = 2;
    in.attempts = 6;
    return in;
  }
};

LessonHit lesson(std::int64_t id, const std::string& situation, const std::string& action) {
  LessonHit h;
  h.lesson.id = id;
  h.lesson.situation = situation;
  h.lesson.action = action;
  h.lesson.tags = {"op/rmsnorm"};
  return h;
}

std::string user(const Prompt& p) { return p.messages.at(1).content; }

}  // namespace

TEST_CASE_FIXTURE(Fixture, "llm prompt: contract, reference, task, limits, best kernel, lessons and notes are all there") {
  PromptInput in = input();
  PromptKernel best;
  best.label = "rmsnorm_row_block BLOCK=64,VEC=4";
  best.source = "// the best source so far";
  best.launch = {{"grid", {"tokens"}}};
  best.time_ms = 0.5;
  best.resources = {{"registers", 24}};
  in.best = best;
  in.lessons = {lesson(11, "rmsnorm rows of 256 on emu", "one thread per row"), lesson(12, "any norm", "fuse the scale")};
  in.notes = {"attempt 1 (k): does not compile:\nk.cu(3): error: expected a \";\""};
  in.lesson_subject = "attempt 1 (k): does not compile:";
  const Prompt p = build_prompt(in);
  REQUIRE(p.messages.size() == 2);
  CHECK(p.messages[0].role == "system");
  CHECK(p.messages[0].content.find("Answer with one JSON object") != std::string::npos);
  const std::string u = user(p);
  for (const char* s : {"## The op: rmsnorm", "const __nv_bfloat16* x", "rmsnorm_reference", "Static (you may hard-code them): hidden=256",
                        "tokens anywhere in 3..4", "Architecture sm_90", "Device: emu", "2.0000 ms",
                        "Best correct kernel so far: rmsnorm_row_block BLOCK=64,VEC=4", "0.5000 ms (4.00x the reference)",
                        "// the best source so far", "\"registers\":24", "When rmsnorm rows of 256 on emu: one thread per row",
                        "expected a \";\"", "Attempt 2 of 6", "propose a \"lesson\""})
    CHECK_MESSAGE(u.find(s) != std::string::npos, s);
  CHECK(p.lesson_ids == std::vector<std::int64_t>{11, 12});
  CHECK(p.chars() <= in.budget_chars);
}

TEST_CASE_FIXTURE(Fixture, "llm prompt: over budget it drops the weakest lessons, then old notes, then the best source, never the contract") {
  PromptInput in = input();
  for (int i = 0; i < 8; ++i) in.lessons.push_back(lesson(100 + i, "situation " + std::string(300, 'a' + i), "action"));
  for (int i = 0; i < 5; ++i) in.notes.push_back("attempt " + std::to_string(i + 1) + ": " + std::string(400, 'n'));
  PromptKernel best;
  best.label = "best";
  best.source = std::string(3000, 's');
  in.best = best;
  const std::size_t full = build_prompt(in).chars();
  in.budget_chars = full - 2000;
  Prompt p = build_prompt(in);
  CHECK(p.chars() <= in.budget_chars);
  CHECK(p.lessons_dropped > 0);
  CHECK(p.lessons_dropped < 8);
  CHECK(p.notes_dropped == 0);
  // The lessons kept are the best-ranked ones, in order.
  CHECK(p.lesson_ids.front() == 100);

  in.budget_chars = build_prompt(input()).chars() + 500;  // room for little beyond the fixed part
  p = build_prompt(in);
  CHECK(p.chars() <= in.budget_chars);
  CHECK(p.lesson_ids.empty());
  CHECK(p.best_source_dropped);
  CHECK(user(p).find("attempt 5: ") != std::string::npos);  // the latest note stays: it says what to fix
  CHECK(user(p).find("rmsnorm_reference") != std::string::npos);
  CHECK(user(p).find("Attempt 2 of 6") != std::string::npos);
}
