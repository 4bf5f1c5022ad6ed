#include "gate/timing_regression.hpp"

#include <fmt/format.h>

namespace hone {

RegressionCheck check_regression(const TimingSample& now, const TimingSample& baseline, double max_regression_pct) {
  RegressionCheck c;
  if (now.median_ms <= 0 || baseline.median_ms <= 0) {
    c.explanation = "no time to compare";
    return c;
  }
  c.ratio = now.median_ms / baseline.median_ms;
  const double allowed = 1 + max_regression_pct / 100;
  const double now_fast = now.median_ms * (1 - now.spread / 2);
  const double base_slow = baseline.median_ms * (1 + baseline.spread / 2);
  const std::string figures = fmt::format("{:.4g} ms against {:.4g} ms, {:.2f}x; spreads {:.0f}% and {:.0f}%", now.median_ms,
                                          baseline.median_ms, c.ratio, now.spread * 100, baseline.spread * 100);
  if (now_fast > base_slow * allowed) {
    c.regressed = true;
    c.explanation = fmt::format("slower by more than {:g}% beyond the noise: {}", max_regression_pct, figures);
  } else if (c.ratio > allowed) {
    c.explanation = fmt::format("slower by more than {:g}%, but within the noise (not failed): {}", max_regression_pct, figures);
  } else {
    c.explanation = fmt::format("within {:g}%: {}", max_regression_pct, figures);
  }
  return c;
}

}  // namespace hone
