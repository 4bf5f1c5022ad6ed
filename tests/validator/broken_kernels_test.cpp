#include <doctest/doctest.h>

#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "validator/candidate_validation.hpp"

using namespace hone;

namespace {

const std::filesystem::path kDir = std::filesystem::path(HONE_TEST_DATA_DIR) / "validator" / "broken";

Candidate case_candidate(const nlohmann::json& c) {
  Candidate k;
  k.op = c["op"];
  k.origin = c.value("origin", "user");
  k.entry = c["entry"];
  k.source = read_text_file(kDir / c["file"].get<std::string>());
  k.launch.grid = parse_dim_list(c["grid"]);
  k.launch.block = parse_dim_list(c["block"]);
  k.launch.smem = Expr::parse(c.value("smem", "0"));
  return k;
}

}  // namespace

// Each kernel in tests/data/validator/broken is wrong or cheats in one way; the stage meant to
// catch that way must reject it, with a reason that says what it found. The controls must pass.
TEST_CASE("validator: every broken or cheating kernel is rejected by the stage meant to catch it") {
  const nlohmann::json cases = read_json_file(kDir / "cases.json");
  REQUIRE(cases.size() >= 20);
  Worker worker({"emu", "sm_90", 30, {}});
  int rejected = 0;
  for (const auto& c : cases) {
    const std::string name = c["name"];
    CAPTURE(name);
    OpSpec op = load_op(templates_root(), c["op"]);
    ValidationOptions options;
    options.timing.repeats = 3;
    Verdict v = validate_candidate(op, case_candidate(c), parse_shape_text(c["shape"]), options, &worker);
    const std::string expected = c["stage"];
    if (expected == "pass") {
      CHECK_MESSAGE(v.pass, v.stage << ": " << v.reason);
      continue;
    }
    CHECK_FALSE(v.pass);
    CHECK_MESSAGE(v.stage == expected, "rejected at " << v.stage << ": " << v.reason);
    CHECK_MESSAGE(v.reason.find(c["reason"].get<std::string>()) != std::string::npos, v.reason);
    rejected += !v.pass && v.stage == expected;
  }
  MESSAGE(rejected << " broken kernels rejected by their stage");
}

// A timing of one sample (a launch of 100 ms or more on a CPU clock, or --repeats 1) launches
// one of its buffer sets: only that launch's outputs are compared, and it is one poisoned with
// finite numbers, the poison that catches a kernel skipping work it finds done (the checked
// launches before it already saw NaN).
TEST_CASE("validator: a timing of one sample checks the launch it made, poisoned with finite numbers") {
  const nlohmann::json cases = read_json_file(kDir / "cases.json");
  auto named = [&](const std::string& name) {
    for (const auto& c : cases)
      if (c["name"] == name) return c;
    FAIL("no case " << name);
    return nlohmann::json();
  };
  Worker worker({"emu", "sm_90", 30, {}});
  ValidationOptions options;
  options.timing.repeats = 1;
  options.timing.warmup_ms = 0;  // one warm-up launch, as for a long kernel: it reaches one buffer set
  options.timing.warmup_runs = 1;
  for (const char* name : {"reads its output but does all the work (control)", "hand-written warp rmsnorm (control)",
                           "reads its output and skips the work when it holds a number"}) {
    const std::string label = name;
    CAPTURE(label);
    const nlohmann::json c = named(label);
    const Verdict v = validate_candidate(load_op(templates_root(), c["op"]), case_candidate(c), parse_shape_text(c["shape"]),
                                         options, &worker);
    if (c["stage"] == "pass") {
      CHECK_MESSAGE(v.pass, v.stage << ": " << v.reason);
      CHECK(v.timing.runs == 1);
    } else {
      CHECK_FALSE(v.pass);
      CHECK_MESSAGE(v.stage == "timing", v.stage << ": " << v.reason);
      CHECK_MESSAGE(v.reason.find("poisoned with finite numbers") != std::string::npos, v.reason);
    }
  }
}
