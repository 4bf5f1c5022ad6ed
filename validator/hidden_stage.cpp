#include "validator/hidden_stage.hpp"

#include <random>

#include "validator/hidden_tests.hpp"
#include "validator/kernel_args.hpp"

namespace hone {

void hidden_stage(StageRun& run) {
  run.stage("hidden");
  std::uint64_t seed = run.req.hidden_seed;
  if (seed == 0) {
    std::random_device rd;
    seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  Rng rng(seed);
  for (const HiddenTest& t : hidden_tests(run.op, run.req.shape, run.req.buckets, rng)) {
    auto host = generate_inputs(run.op, t.shape, t.seed, t.input_case);
    RunResult got = run.run_candidate(t.shape, host);
    RunResult expected = run.run_reference(t.shape, host);
    const std::string mismatch = run.compare(got, expected, t.shape, t.input_case, "hidden test " + t.label);
    if (!mismatch.empty()) run.fail(mismatch);
  }
}

}  // namespace hone
