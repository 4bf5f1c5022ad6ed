// Kernels written by hand against the test families of tests/data/families (paged reads, state
// slots across chained calls, experts, scratch), against fused_add_rmsnorm (in place) and against
// each Qwen3-Next family (a cases file each, so that ctest runs them apart): each right one
// passes, each wrong one is rejected by the stage meant to catch it, with a reason that says what
// it found.
#include <doctest/doctest.h>

#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "validator/candidate_validation.hpp"

using namespace hone;

namespace {

const std::filesystem::path kData = HONE_TEST_DATA_DIR;

OpSpec family(const std::string& name) {
  if (name.rfind("templates:", 0) == 0) return load_op(templates_root(), name.substr(10));
  return load_op_spec(kData / "families" / name);
}

std::vector<std::string> one_or_more(const nlohmann::json& j) {
  if (j.is_array()) return j.get<std::vector<std::string>>();
  return {j.get<std::string>()};
}

// Validates every case of `cases_file` (in tests/data/validator/indexed/) and checks its verdict.
void run_cases(const std::string& cases_file) {
  const nlohmann::json cases = read_json_file(kData / "validator" / "indexed" / cases_file);
  REQUIRE_FALSE(cases.empty());
  Worker worker({"emu", "sm_90", 30, {}});
  for (const auto& c : cases) {
    const std::string name = c["name"];
    CAPTURE(name);
    const OpSpec op = family(c["family"]);
    Candidate k;
    k.op = op.name;
    k.origin = c.value("origin", "user");
    k.entry = c["entry"];
    k.source = read_text_file(kData / "validator" / "indexed" / c["file"].get<std::string>());
    k.launch.grid = parse_dim_list(c["grid"]);
    k.launch.block = parse_dim_list(c["block"]);
    ValidationOptions options;
    options.timing.repeats = 3;
    const Verdict v = validate_candidate(op, k, parse_shape_text(c["shape"]), options, &worker);
    const auto stages = one_or_more(c["stage"]);
    if (stages.front() == "pass") {
      CHECK_MESSAGE(v.pass, v.stage << ": " << v.reason);
      continue;
    }
    CHECK_FALSE(v.pass);
    CHECK_MESSAGE(std::find(stages.begin(), stages.end(), v.stage) != stages.end(), "rejected at " << v.stage << ": " << v.reason);
    const auto reasons = one_or_more(c["reason"]);
    CHECK_MESSAGE(std::any_of(reasons.begin(), reasons.end(), [&](const std::string& r) { return v.reason.find(r) != std::string::npos; }),
                  v.stage << ": " << v.reason);
  }
}
}  // namespace

TEST_CASE("validator: index inputs, chained calls, scratch and aliasing reject the kernels they are there to catch") {
  run_cases("cases.json");
}

TEST_CASE("validator: hand-written causal_conv1d_update kernels get their verdicts (state pools, padded rows and in-place calls)") {
  run_cases("causal_conv1d_update_cases.json");
}

TEST_CASE("validator: hand-written gdn_gated_decode kernels get their verdicts (the gating, the l2 norms and the state pool)") {
  run_cases("gdn_gated_decode_cases.json");
}

TEST_CASE("validator: hand-written rmsnorm_gated kernels get their verdicts (the gate and the norm)") {
  run_cases("rmsnorm_gated_cases.json");
}

TEST_CASE("validator: hand-written moe_topk_softmax kernels get their verdicts (exact ids, ties and the renormalisation)") {
  run_cases("moe_topk_softmax_cases.json");
}

TEST_CASE("validator: hand-written moe_gate_up kernels get their verdicts (only the chosen experts)") {
  run_cases("moe_gate_up_cases.json");
}

TEST_CASE("validator: hand-written moe_down kernels get their verdicts (the weighted sum over the chosen experts)") {
  run_cases("moe_down_cases.json");
}

TEST_CASE("validator: hand-written gemv kernels on tensor cores get their verdicts (w's layout, rows past M, partial tiles of a split over warps)") {
  run_cases("gemv_wmma_cases.json");
}

TEST_CASE("validator: hand-written split-K gemv kernels over a thread-block cluster get their verdicts (the two cluster.sync())") {
  run_cases("gemv_cluster_cases.json");
}
