// Kernels written by hand against the test families of tests/data/families (paged reads, state
// slots across chained calls, experts, scratch) and against fused_add_rmsnorm (in place): each
// right one passes, each wrong one is rejected by the stage meant to catch it, with a reason that
// says what it found.
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

}  // namespace

TEST_CASE("validator: index inputs, chained calls, scratch and aliasing reject the kernels they are there to catch") {
  const nlohmann::json cases = read_json_file(kData / "validator" / "indexed" / "cases.json");
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
