#include <doctest/doctest.h>

#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "tuner/task.hpp"

using namespace hone;

namespace {
ModelShapes shapes(const std::string& name) { return load_model_shapes(hone_home() / "shapes" / (name + ".json")); }
}  // namespace

TEST_CASE("tasks: qwen3-8b rmsnorm gives one task per distinct shape and bucket, layers merged") {
  auto tasks = tasks_from_model(shapes("qwen3-8b"), templates_root(), {"rmsnorm"}, "sm_90");
  // hidden=4096 (three layers), q_norm (tokens*32 rows of 128), k_norm (tokens*8 rows of 128); 7 buckets each.
  REQUIRE(tasks.size() == 21);
  CHECK(tasks[0].label() == "rmsnorm hidden=4096 tokens=1");
  CHECK(tasks[0].layers == std::vector<std::string>{"qwen3-8b/input_layernorm", "qwen3-8b/post_attention_layernorm", "qwen3-8b/final_norm"});
  CHECK(tasks[0].scalars.at("eps") == doctest::Approx(1e-6));
  CHECK(tasks[6].label() == "rmsnorm hidden=4096 tokens=33..64");
  CHECK(tasks[6].shape.at("tokens") == 64);
  CHECK(tasks[13].label() == "rmsnorm hidden=128 tokens=1056..2048");
  CHECK(tasks[13].layers == std::vector<std::string>{"qwen3-8b/q_norm"});
  for (const auto& t : tasks) CHECK(t.arch == "sm_90");
}

TEST_CASE("tasks: every op of every model resolves to a family with all its symbols") {
  for (const char* m : {"qwen3-8b", "llama-3.1-8b", "qwen3-next-80b-a3b"}) {
    CAPTURE(m);
    auto tasks = tasks_from_model(shapes(m), templates_root(), {}, "sm_90");
    CHECK(tasks.size() >= 7 * 4);
  }
}

TEST_CASE("tasks: bad shapes are refused with the file and the problem") {
  const std::string data = HONE_TEST_DATA_DIR;
  CHECK_THROWS_WITH_AS(tasks_from_model(load_model_shapes(data + "/shapes/missing_symbol.json"), templates_root(), {}, "sm_90"),
                       doctest::Contains("missing_symbol.json: ops[0] (norm): dims lack 'hidden'"), InputError);
  CHECK_THROWS_WITH_AS(load_model_shapes(data + "/shapes/not_json.json"), doctest::Contains("not_json.json: is not valid JSON"),
                       InputError);
  CHECK_THROWS_WITH_AS(tasks_from_model(shapes("qwen3-8b"), templates_root(), {"softmax"}, "sm_90"),
                       doctest::Contains("--ops names 'softmax'"), InputError);
}
