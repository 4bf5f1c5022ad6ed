#include "validator/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

namespace hone {

TimingStats summarize_samples(std::vector<double> s, const std::string& timer) {
  TimingStats t;
  t.timer = timer;
  t.runs = static_cast<int>(s.size());
  if (s.empty()) return t;
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  t.min_ms = s.front();
  t.median_ms = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  auto quantile = [&](double q) { return s[static_cast<std::size_t>(std::floor(q * (n - 1)))]; };
  t.spread = t.median_ms > 0 ? (quantile(0.9) - quantile(0.1)) / t.median_ms : 0;
  return t;
}

bool needs_remeasure(const TimingStats& stats, const TimingOptions& options) { return stats.spread > options.max_spread; }

double speedup(const TimingStats& baseline, const TimingStats& candidate) {
  return baseline.median_ms > 0 && candidate.median_ms > 0 ? baseline.median_ms / candidate.median_ms : 0;
}

std::string impossible_speed(double median_ms, double bytes, double flops, const DeviceInfo& device) {
  const double seconds = median_ms * 1e-3;
  // The measured copy rate can be low (a cold GPU, a copy engine slower than the SMs), the peak
  // from the attributes can be missing: the larger bound of the two, so no honest kernel fails.
  const double limit_gbs =
      std::max(device.copy_bandwidth_gbs * kCopyBandwidthHeadroom, device.peak_bandwidth_gbs * kPeakBandwidthHeadroom);
  if (device.copy_bandwidth_gbs > 0 && bytes > 0) {
    const double floor_ms = bytes / (limit_gbs * 1e9) * 1e3;
    if (median_ms < floor_ms)
      return fmt::format("impossible speed: {:.4g} ms moves {:.4g} bytes at {:.4g} GB/s, above {:.4g} GB/s (the larger of "
                         "{:.3g}x the device's measured copy rate of {:.4g} GB/s and {:.3g}x its memory's peak of {:.4g} GB/s; "
                         "at least {:.4g} ms)",
                         median_ms, bytes, bytes / seconds * 1e-9, limit_gbs, kCopyBandwidthHeadroom, device.copy_bandwidth_gbs,
                         kPeakBandwidthHeadroom, device.peak_bandwidth_gbs, floor_ms);
  }
  if (device.peak_gflops > 0 && flops > 0) {
    const double floor_ms = flops / (device.peak_gflops * 1e9) * 1e3;
    if (median_ms < floor_ms)
      return fmt::format("impossible speed: {:.4g} ms does {:.4g} flops at {:.4g} GFLOP/s, above the device's peak {:.4g} "
                         "GFLOP/s (at least {:.4g} ms)",
                         median_ms, flops, flops / seconds * 1e-9, device.peak_gflops, floor_ms);
  }
  return "";
}

TimingStats warm_up(Device& device, LoadedKernel& kernel, const LaunchDims& dims, const std::vector<TimedSample>& samples,
                    const TimingOptions& options) {
  // By time on the device's clock, so a GPU reaches its boost clocks; bounded by the host's
  // clock too, for a kernel so short that the device time never adds up.
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> seen;
  double warm = 0;
  for (int i = 0; i < options.warmup_runs || warm < options.warmup_ms; ++i) {
    const TimedSample& s = samples[static_cast<std::size_t>(i) % samples.size()];
    seen.push_back(device.timed_launch(kernel, dims, s.arg_sets.front(), s.before));
    warm += seen.back();
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i >= options.warmup_runs && (i > 1000 || wall_ms > 5 * options.warmup_ms)) break;
  }
  return summarize_samples(std::move(seen), device.info().timer);
}

namespace {

double sample(Device& device, LoadedKernel& kernel, const LaunchDims& dims, const TimedSample& s, const TimingPlan& plan) {
  if (plan.launches_per_sample <= 1 && s.arg_sets.size() == 1) return device.timed_launch(kernel, dims, s.arg_sets.front(), s.before);
  return device.timed_batch(kernel, dims, s.arg_sets, plan.launches_per_sample, s.before);
}

const TimedSample& nth(const std::vector<TimedSample>& samples, int i) { return samples[static_cast<std::size_t>(i) % samples.size()]; }

}  // namespace

TimingStats measure(Device& device, LoadedKernel& kernel, const LaunchDims& dims, const std::vector<TimedSample>& samples,
                    const TimingPlan& plan, const TimingOptions& options) {
  // Noise makes a wide spread; measure again (a fresh set of samples) a bounded number of times
  // and keep the tightest set.
  TimingStats best;
  for (int attempt = 0; attempt <= plan.remeasures; ++attempt) {
    std::vector<double> times;
    double total = 0;
    for (int i = 0; i < plan.samples; ++i) {
      times.push_back(sample(device, kernel, dims, nth(samples, i), plan));
      total += times.back() * plan.launches_per_sample;
      if (times.size() >= 3 && total > options.max_total_ms) break;
    }
    TimingStats t = summarize_samples(std::move(times), device.info().timer);
    if (attempt == 0 || t.spread < best.spread) best = t;
    if (!needs_remeasure(best, options)) break;
  }
  return best;
}

TimingStats measure(Device& device, const TimedKernel& k, const TimingOptions& options) {
  if (k.plan.warm_up_is_sample) return k.warm;
  return measure(device, *k.kernel, k.dims, k.samples, k.plan, options);
}

std::pair<TimingStats, TimingStats> time_interleaved(Device& device, const TimedKernel& a, const TimedKernel& b,
                                                     const TimingOptions& options) {
  if (a.plan.warm_up_is_sample && b.plan.warm_up_is_sample) return {a.warm, b.warm};
  double warm = 0;
  for (int i = 0; i < options.warmup_runs || warm < options.warmup_ms; ++i) {
    warm += sample(device, *a.kernel, a.dims, nth(a.samples, i), a.plan) * a.plan.launches_per_sample +
            sample(device, *b.kernel, b.dims, nth(b.samples, i), b.plan) * b.plan.launches_per_sample;
    if (i > 1000) break;
  }
  std::vector<double> sa, sb;
  double total = 0;
  const int samples = std::max(a.plan.samples, b.plan.samples);
  for (int i = 0; i < samples; ++i) {
    sa.push_back(sample(device, *a.kernel, a.dims, nth(a.samples, i), a.plan));
    sb.push_back(sample(device, *b.kernel, b.dims, nth(b.samples, i), b.plan));
    total += sa.back() * a.plan.launches_per_sample + sb.back() * b.plan.launches_per_sample;
    if (sa.size() >= 3 && total > options.max_total_ms) break;
  }
  return {summarize_samples(std::move(sa), device.info().timer), summarize_samples(std::move(sb), device.info().timer)};
}

}  // namespace hone
