#include "validator/timing.hpp"

#include <algorithm>
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

std::string impossible_speed(double median_ms, double bytes, double flops, const DeviceInfo& device) {
  const double seconds = median_ms * 1e-3;
  if (device.copy_bandwidth_gbs > 0 && bytes > 0) {
    const double floor_ms = bytes / (device.copy_bandwidth_gbs * 1e9) * 1e3;
    if (median_ms < floor_ms)
      return fmt::format("impossible speed: {:.4g} ms moves {:.4g} bytes at {:.4g} GB/s, above the device's {:.4g} GB/s "
                         "(at least {:.4g} ms)",
                         median_ms, bytes, bytes / seconds * 1e-9, device.copy_bandwidth_gbs, floor_ms);
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

TimingStats time_kernel(Device& device, LoadedKernel& kernel, const LaunchDims& dims, void** args,
                        const TimingOptions& options) {
  double warm = 0;
  for (int i = 0; i < options.warmup_runs || warm < options.warmup_ms; ++i) {
    warm += device.timed_launch(kernel, dims, args);
    if (i > 1000) break;
  }
  // Noise makes a wide spread; measure again (a fresh set of repeats) a bounded number of times and
  // keep the tightest set.
  TimingStats best;
  for (int attempt = 0; attempt <= options.remeasures; ++attempt) {
    std::vector<double> samples;
    double total = 0;
    for (int i = 0; i < options.repeats; ++i) {
      samples.push_back(device.timed_launch(kernel, dims, args));
      total += samples.back();
      if (samples.size() >= 3 && total > options.max_total_ms) break;
    }
    TimingStats t = summarize_samples(std::move(samples), device.info().timer);
    if (attempt == 0 || t.spread < best.spread) best = t;
    if (best.spread <= options.max_spread) break;
  }
  return best;
}

}  // namespace hone

namespace hone {

std::pair<TimingStats, TimingStats> time_interleaved(Device& device, LoadedKernel& a, const LaunchDims& a_dims, void** a_args,
                                                     LoadedKernel& b, const LaunchDims& b_dims, void** b_args,
                                                     const TimingOptions& options) {
  double warm = 0;
  for (int i = 0; i < options.warmup_runs || warm < options.warmup_ms; ++i) {
    warm += device.timed_launch(a, a_dims, a_args) + device.timed_launch(b, b_dims, b_args);
    if (i > 1000) break;
  }
  std::vector<double> sa, sb;
  double total = 0;
  for (int i = 0; i < options.repeats; ++i) {
    sa.push_back(device.timed_launch(a, a_dims, a_args));
    sb.push_back(device.timed_launch(b, b_dims, b_args));
    total += sa.back() + sb.back();
    if (sa.size() >= 3 && total > options.max_total_ms) break;
  }
  return {summarize_samples(std::move(sa), device.info().timer), summarize_samples(std::move(sb), device.info().timer)};
}

}  // namespace hone
