#include "validator/timing_plan.hpp"

#include <algorithm>
#include <cmath>

namespace hone {

int samples_after_warm_up(const DeviceInfo& device, double launch_ms) {
  const TimingPlan plan = plan_timing(launch_ms, 0, device, TimingOptions{});
  return plan.warm_up_is_sample ? 0 : plan.samples;
}

TimingPlan plan_timing(double launch_ms, double working_set_bytes, const DeviceInfo& device, const TimingOptions& options,
                       double output_bytes) {
  TimingPlan plan;
  plan.samples = std::max(1, options.repeats);
  plan.remeasures = std::max(0, options.remeasures);
  if (device.timer == "gpu") plan.samples = std::max(plan.samples, kMinGpuSamples);
  if (times_on_cpu(device)) {
    plan.samples = std::min(plan.samples, launch_ms >= kCpuLongLaunchMs ? 1 : kCpuSamples);
    plan.remeasures = 0;
    plan.warm_up_is_sample = launch_ms >= kCpuLongLaunchMs;
  }
  if (!device.replays_batches || launch_ms >= kBatchBelowMs) return plan;

  // A launch that reports 0 ms (below the clock's resolution) is counted as 1 us.
  const double per_launch = std::max(launch_ms, 1e-3);
  int most = kMaxBatchLaunches;
  if (output_bytes > 0) most = std::clamp(static_cast<int>(kMaxBatchOutputBytes / output_bytes), 2, kMaxBatchLaunches);
  plan.launches_per_sample = std::clamp(static_cast<int>(std::ceil(kBatchTargetMs / per_launch)), 2, most);
  // Enough sets that one rotation moves three times the L2 through it: each set is gone from L2
  // by the time it comes round again, with a margin, as the L2 does not evict strictly in order
  // (Hopper's is two partitions); partial hits would time the cache, or fail the physical floor.
  // More sets than launches would never be used.
  if (device.l2_bytes > 0 && working_set_bytes > 0 && working_set_bytes < kRotationL2Multiple * device.l2_bytes) {
    const double sets = std::ceil(kRotationL2Multiple * device.l2_bytes / working_set_bytes);
    plan.input_sets = static_cast<int>(std::min<double>({sets, kMaxInputSets, static_cast<double>(plan.launches_per_sample)}));
  }
  return plan;
}

}  // namespace hone
