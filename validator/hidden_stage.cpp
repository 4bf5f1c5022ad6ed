#include "validator/hidden_stage.hpp"

#include <random>

#include "validator/hidden_tests.hpp"
#include "validator/reference_check.hpp"

namespace hone {

void hidden_stage(StageRun& run) {
  run.stage("hidden");
  std::uint64_t seed = run.req.hidden_seed;
  if (seed == 0) {
    std::random_device rd;
    seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  Rng rng(seed);
  for (const HiddenTest& t : hidden_tests(run.op, run.req.shape, run.req.buckets, rng))
    check_against_reference(run, t.shape, {t.seed, t.input_case, t.modes, t.scalars}, "hidden test " + t.label);
}

}  // namespace hone
