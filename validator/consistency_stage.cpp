#include "validator/consistency_stage.hpp"

#include <random>

#include <fmt/format.h>

#include "validator/reference_check.hpp"

namespace hone {

void consistency_stage(StageRun& run) {
  run.stage("consistency");
  if (!run.first) return;
  // The same inputs again, now after the reference ran, and in another order of blocks, warps
  // and threads where the device can choose it: a race or state kept from the first launch shows.
  run.device.set_schedule_seed(0x5eed5eedULL);
  const std::string mismatch = recheck(run, run.req.shape, *run.first, "a second run, after the reference and in another schedule");
  run.device.set_schedule_seed(0);
  if (!mismatch.empty()) run.fail(mismatch + "; the first run agreed: a race, or state kept between launches");
}

void after_timing_check(StageRun& run) {
  run.stage("consistency");
  // A kernel that behaves differently once it has been called many times (counting its calls,
  // detecting the timing loop) is caught here, on inputs it has not seen.
  std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  check_against_reference(run, run.req.shape, {seed, nullptr, {}, {}}, fmt::format("after {} timed launches, seed {}", run.timed_launches, seed));
}

}  // namespace hone
