#pragma once
// Measuring a kernel's time on a device (stage 5 uses it, validator/timing_stage.hpp): warm up
// by time, then samples on the device's own clock as the timing plan says (single launches, or
// replayed batches), each sample's buffers restored before it (validator/timed_launches.hpp),
// measured again when the spread is too wide; the median, minimum and spread of the tightest
// measurement.
#include <vector>

#include "runtime/device.hpp"
#include "validator/evaluation.hpp"
#include "validator/timing_plan.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// What one sample launches: the argument set of each launch (one, or a batch's), and the copies
/// that restore their buffers before it, outside the time.
struct TimedSample {
  std::vector<void**> arg_sets;
  BufferCopies before;
};

/// Launches until options.warmup_ms have passed on the device's clock (and at least
/// options.warmup_runs launches), single launches taking `samples` in turn; returns the launches
/// seen (their median is what plan_timing is given).
TimingStats warm_up(Device& device, LoadedKernel& kernel, const LaunchDims& dims, const std::vector<TimedSample>& samples,
                    const TimingOptions& options);

/// Samples per `plan`, sample i launching samples[i % samples.size()], measured again while the
/// spread is too wide, at most options.remeasures times; the tightest measurement.
TimingStats measure(Device& device, LoadedKernel& kernel, const LaunchDims& dims, const std::vector<TimedSample>& samples,
                    const TimingPlan& plan, const TimingOptions& options);

/// One kernel as it is timed: where it launches, its plan, and its warm-up.
struct TimedKernel {
  LoadedKernel* kernel;
  LaunchDims dims;
  std::vector<TimedSample> samples;
  TimingPlan plan;
  TimingStats warm;  // what warm_up saw
};

/// The kernel's time per its plan: measure(), or its warm-up when the plan makes that the sample.
TimingStats measure(Device& device, const TimedKernel& k, const TimingOptions& options);

/// Times two kernels in turns (a sample of a, one of b, ...) after warming both up, so that drift
/// in the machine's state (clocks, temperature, other load) affects both alike. When both plans
/// make the warm-up the sample (long launches on a CPU clock), their warm-ups, taken one after
/// the other, were the turns.
std::pair<TimingStats, TimingStats> time_interleaved(Device& device, const TimedKernel& a, const TimedKernel& b,
                                                     const TimingOptions& options);

/// Median, minimum and relative spread of a set of samples.
TimingStats summarize_samples(std::vector<double> samples_ms, const std::string& timer);

/// Whether a measurement is too noisy to keep: its spread is above options.max_spread.
bool needs_remeasure(const TimingStats& stats, const TimingOptions& options);

/// How many times faster `candidate` is than `baseline` (their medians); 0 when either is missing.
double speedup(const TimingStats& baseline, const TimingStats& candidate);

/// A kernel may beat the device's measured copy rate (cuMemcpy reaches 75-90% of the memory's
/// peak) by a little, never by this factor.
constexpr double kCopyBandwidthHeadroom = 1.25;
/// Nor the memory's peak by more than what partial L2 hits among rotated inputs can give.
constexpr double kPeakBandwidthHeadroom = 1.1;

/// Why `median_ms` is impossible on this device (below bytes over its memory bandwidth, the larger
/// of the measured copy rate and the peak with their headrooms, or flops over its peak), or ""
/// when it is possible or the limits are unknown.
std::string impossible_speed(double median_ms, double bytes, double flops, const DeviceInfo& device);

}  // namespace hone
