#include "validator/consistency_stage.hpp"

#include <random>

#include <fmt/format.h>

#include "validator/kernel_args.hpp"

namespace hone {

void consistency_stage(StageRun& run) {
  run.stage("consistency");
  if (!run.first_host) return;
  // The same inputs again, now after the reference ran, and in another order of blocks, warps
  // and threads where the device can choose it: a race or state kept from the first launch shows.
  run.device.set_schedule_seed(0x5eed5eedULL);
  RunResult again = run.run_candidate(run.req.shape, *run.first_host);
  run.device.set_schedule_seed(0);
  const std::string mismatch =
      run.compare(again, *run.first_expected, run.req.shape, nullptr, "a second run, after the reference and in another schedule");
  if (!mismatch.empty()) run.fail(mismatch + "; the first run agreed: a race, or state kept between launches");
}

void after_timing_check(StageRun& run) {
  run.stage("consistency");
  // A kernel that behaves differently once it has been called many times (counting its calls,
  // detecting the timing loop) is caught here, on inputs it has not seen.
  std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  auto host = generate_inputs(run.op, run.req.shape, seed);
  RunResult got = run.run_candidate(run.req.shape, host);
  RunResult expected = run.run_reference(run.req.shape, host);
  const std::string mismatch = run.compare(got, expected, run.req.shape, nullptr,
                                           fmt::format("after {} timed launches, seed {}", run.timed_launches, seed));
  if (!mismatch.empty()) run.fail(mismatch);
}

}  // namespace hone
