#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "support/family_home.hpp"
#include "tuner/task.hpp"

using namespace hone;

namespace {
ModelShapes shapes(const std::string& name) { return load_model_shapes(hone_home() / "shapes" / (name + ".json")); }
}  // namespace

TEST_CASE("tasks: qwen3-8b's norms give one task per distinct shape and bucket, layers merged") {
  // Layer 0's input norm is the only rmsnorm (the per-head q/k norms are qk_norm_rope's): 7 buckets.
  auto tasks = tasks_from_model(shapes("qwen3-8b"), templates_root(), {"rmsnorm"}, "sm_90");
  REQUIRE(tasks.size() == 7);
  CHECK(tasks[0].label() == "rmsnorm hidden=4096 tokens=1");
  CHECK(tasks[0].layers == std::vector<std::string>{"qwen3-8b/first_input_layernorm"});
  CHECK(tasks[0].scalars.at("eps") == doctest::Approx(1e-6));
  CHECK(tasks[6].label() == "rmsnorm hidden=4096 tokens=33..64");
  CHECK(tasks[6].shape.at("tokens") == 64);
  for (const auto& t : tasks) CHECK(t.arch == "sm_90");

  // The three fused residual norms share hidden=4096: one task per bucket, naming all three layers.
  auto fused = tasks_from_model(shapes("qwen3-8b"), templates_root(), {"fused_add_rmsnorm"}, "sm_90");
  REQUIRE(fused.size() == 7);
  CHECK(fused[3].label() == "fused_add_rmsnorm hidden=4096 tokens=5..8");
  CHECK(fused[3].layers.size() == 3);
  CHECK(std::count(fused[3].layers.begin(), fused[3].layers.end(), "qwen3-8b/post_attention_layernorm") == 1);
}

TEST_CASE("tasks: every op of every model resolves to a family with all its symbols") {
  for (const char* m : {"qwen3-8b", "llama-3.1-8b", "qwen3-next-80b-a3b"}) {
    CAPTURE(m);
    auto tasks = tasks_from_model(shapes(m), templates_root(), {}, "sm_90");
    CHECK(tasks.size() >= 7 * 4);
  }
}

TEST_CASE("tasks: attention_decode gets a task per (batch, context) bucket pair, MAXP from the context") {
  auto tasks = tasks_from_model(shapes("llama-3.1-8b"), templates_root(), {"attention_decode"}, "sm_90");
  REQUIRE(tasks.size() == 7 * 4);  // tokens 1..64 in 7 buckets, context 1K, 4K, 16K, 32K
  CHECK(tasks[0].label() == "attention_decode D=128 HKV=8 HQ=32 PAGE=16 page_stride=16384 q_stride=6144 MAXP=1..64 batch=1");
  CHECK(tasks.back().label() == "attention_decode D=128 HKV=8 HQ=32 PAGE=16 page_stride=16384 q_stride=6144 MAXP=1025..2048 batch=33..64");
  CHECK(tasks.back().shape.at("MAXP") == 2048);
  auto next = tasks_from_model(shapes("qwen3-next-80b-a3b"), templates_root(), {"attention_decode"}, "sm_90");
  REQUIRE_FALSE(next.empty());
  CHECK(next[0].static_dims == Bindings{{"D", 256}, {"HKV", 2}, {"HQ", 16}, {"PAGE", 16}, {"page_stride", 8192}, {"q_stride", 4096}});

  // scripts/gpu-check's attention: 1, 8 and 64 sequences of 4K and 32K tokens.
  auto check = tasks_from_model(load_model_shapes(std::string(HONE_TEST_DATA_DIR) + "/shapes/gpu-check.json"), templates_root(),
                                {"attention_decode"}, "sm_90");
  std::set<std::pair<std::int64_t, std::int64_t>> at;
  for (const auto& t : check) at.insert({t.shape.at("batch"), t.shape.at("MAXP")});
  CHECK(at == std::set<std::pair<std::int64_t, std::int64_t>>{{1, 256}, {8, 256}, {64, 256}, {1, 2048}, {8, 2048}, {64, 2048}});
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

TEST_CASE("tasks: the norms between layers are fused_add_rmsnorm, layer 0's input norm rmsnorm") {
  for (const char* m : {"qwen3-8b", "llama-3.1-8b"}) {
    CAPTURE(m);
    const std::string model = m;
    auto fused = tasks_from_model(shapes(m), templates_root(), {"fused_add_rmsnorm"}, "sm_90");
    REQUIRE(fused.size() == 7);
    CHECK(fused[0].label() == "fused_add_rmsnorm hidden=4096 tokens=1");
    CHECK(fused[0].layers ==
          std::vector<std::string>{model + "/input_layernorm", model + "/post_attention_layernorm", model + "/final_norm"});
    auto plain = tasks_from_model(shapes(m), templates_root(), {"rmsnorm"}, "sm_90");
    CHECK(plain[0].layers == std::vector<std::string>{model + "/first_input_layernorm"});
  }
}

TEST_CASE("tasks: with two dynamic dims, only an op that reads both gets a task per bucket pair") {
  hone::test::FamilyHome home("tasks");
  const auto model = load_model_shapes(std::string(HONE_TEST_DATA_DIR) + "/shapes/two_dims.json");
  const auto tasks = tasks_from_model(model, home.dir / "templates", {}, "sm_90");
  std::vector<std::string> labels;
  for (const auto& t : tasks) labels.push_back(t.label());
  const std::vector<std::string> expected{
      "paged_sum D=8 PAGE=4 batch=1..2 ctx=1..16", "paged_sum D=8 PAGE=4 batch=3..4 ctx=1..16",
      "paged_sum D=8 PAGE=4 batch=1..2 ctx=17..48", "paged_sum D=8 PAGE=4 batch=3..4 ctx=17..48",
      "split_sum N=256 rows=1..2", "split_sum N=256 rows=3..4", "rmsnorm hidden=256 tokens=1..2", "rmsnorm hidden=256 tokens=3..4"};
  CHECK(labels == expected);
  CHECK(tasks[3].shape == Bindings{{"D", 8}, {"PAGE", 4}, {"batch", 4}, {"ctx", 48}});
}

TEST_CASE("tasks: scripts/gpu-check's Qwen3-Next file gives each of its families a task at 1, 4, 16 and 64 tokens") {
  const auto model = load_model_shapes(std::string(HONE_TEST_DATA_DIR) + "/shapes/gpu-check-qwen3-next.json");
  std::map<std::string, std::set<std::int64_t>> tokens_of;
  for (const auto& t : tasks_from_model(model, templates_root(), {}, "sm_90")) {
    const auto& s = t.shape;
    tokens_of[t.op].insert(s.count("B") ? s.at("B") : s.count("rows") ? s.at("rows") / 32 : s.at("tokens"));
  }
  const std::set<std::int64_t> buckets{1, 4, 16, 64};
  for (const char* op : {"causal_conv1d_update", "gdn_gated_decode", "rmsnorm_gated", "moe_topk_softmax", "moe_gate_up", "moe_down"}) {
    CAPTURE(op);
    CHECK(tokens_of[op] == buckets);
  }
}

TEST_CASE("tasks: scripts/gpu-check's linear file gives each of Qwen3-8B's five bf16 linear layers a task at M = 1, 8, 32 and 64") {
  const auto model = load_model_shapes(std::string(HONE_TEST_DATA_DIR) + "/shapes/gpu-check-linear.json");
  std::map<std::pair<std::int64_t, std::int64_t>, std::set<std::int64_t>> batches_of;  // (N, K) -> M
  for (const auto& t : tasks_from_model(model, templates_root(), {}, "sm_90")) {
    CHECK(t.op == "gemv");
    batches_of[{t.shape.at("N"), t.shape.at("K")}].insert(t.shape.at("M"));
  }
  const std::set<std::int64_t> buckets{1, 8, 32, 64};
  CHECK(batches_of.size() == 5);
  for (const auto& [nk, ms] : batches_of) CHECK(ms == buckets);
  CHECK(batches_of.count({151936, 4096}) == 1);  // lm_head
}
