#include "validator/timing.hpp"

#include <algorithm>
#include <cmath>

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

TimingStats time_kernel(Device& device, LoadedKernel& kernel, const LaunchDims& dims, void** args,
                        const TimingOptions& options) {
  double warm = 0;
  for (int i = 0; i < options.warmup_runs || warm < options.warmup_ms; ++i) {
    warm += device.timed_launch(kernel, dims, args);
    if (i > 1000) break;
  }
  std::vector<double> samples;
  double total = 0;
  for (int i = 0; i < options.repeats; ++i) {
    samples.push_back(device.timed_launch(kernel, dims, args));
    total += samples.back();
    if (samples.size() >= 3 && total > options.max_total_ms) break;
  }
  return summarize_samples(std::move(samples), device.info().timer);
}

}  // namespace hone
