#pragma once
// Whether a kernel got slower, allowing for measurement noise: the gate's timing test.
#include <string>

namespace hone {

/// A timed kernel: its median and the spread of its runs, (p90 - p10) / median.
struct TimingSample {
  double median_ms = 0;
  double spread = 0;
};

struct RegressionCheck {
  bool regressed = false;
  double ratio = 0;          // now / baseline medians
  std::string explanation;   // one line for people
};

/// A regression is a slowdown beyond `max_regression_pct` that noise cannot explain: even the
/// fast end of the new kernel's band, median * (1 - spread/2), is slower than the slow end of
/// the baseline's, median * (1 + spread/2), by more than the allowed percentage. A slowdown
/// above the percentage that stays within the bands is reported as noise, not failed: the
/// remedy is a quieter machine or more repeats, not a red build.
RegressionCheck check_regression(const TimingSample& now, const TimingSample& baseline, double max_regression_pct);

}  // namespace hone
