#include "validator/reference_stage.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "validator/reference_check.hpp"

namespace hone {

void reference_stage(StageRun& run, Verdict& v) {
  run.stage("reference");
  std::vector<const InputCase*> cases{nullptr};
  for (const auto& c : run.op.input_cases) cases.push_back(&c);
  nlohmann::json checked = nlohmann::json::array();
  for (const InputCase* c : cases) {
    // Every seed with the arguments' own distributions; the first seed for the other cases.
    const std::size_t seeds = c ? std::min<std::size_t>(1, run.req.seeds.size()) : run.req.seeds.size();
    for (std::size_t s = 0; s < seeds; ++s) {
      const std::uint64_t seed = run.req.seeds[s];
      const std::string what = fmt::format("seed {}, inputs {}", seed, c ? c->name : "default");
      CheckedInputs inputs = check_against_reference(run, run.req.shape, {seed, c, {}, {}}, what);
      checked.push_back({{"seed", seed}, {"case", c ? c->name : "default"}});
      if (!run.first) run.first = std::move(inputs);
    }
  }
  v.detail["reference_checks"] = checked;
}

}  // namespace hone
