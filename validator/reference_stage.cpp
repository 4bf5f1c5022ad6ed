#include "validator/reference_stage.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "validator/kernel_args.hpp"

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
      auto host = generate_inputs(run.op, run.req.shape, seed, c);
      // The candidate runs first, on fresh buffers: nothing of the reference's is left to read.
      RunResult got = run.run_candidate(run.req.shape, host);
      RunResult expected = run.run_reference(run.req.shape, host);
      const std::string what = fmt::format("seed {}, inputs {}", seed, c ? c->name : "default");
      const std::string mismatch = run.compare(got, expected, run.req.shape, c, what);
      if (!mismatch.empty()) run.fail(mismatch, {{"seed", seed}, {"case", c ? c->name : "default"}});
      checked.push_back({{"seed", seed}, {"case", c ? c->name : "default"}});
      if (!run.first_host) {
        run.first_host = std::move(host);
        run.first_expected = std::move(expected);
      }
    }
  }
  v.detail["reference_checks"] = checked;
}

}  // namespace hone
