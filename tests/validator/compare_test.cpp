#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "validator/compare.hpp"
#include "validator/timing.hpp"

using namespace hone;

TEST_CASE("compare: tolerance is atol + rtol*|expected|, and NaN or Inf never pass") {
  HostTensor e(DType::f32, 4), g(DType::f32, 4);
  for (int i = 0; i < 4; ++i) e.set(i, 10.0);
  g.set(0, 10.0);
  g.set(1, 10.5);   // within 0.1 + 0.05*10 = 0.6
  g.set(2, 10.7);   // outside
  g.set(3, std::numeric_limits<double>::quiet_NaN());
  Comparison c = compare_buffers(g, e, {0.1, 0.05});
  CHECK(c.mismatches == 2);
  CHECK(c.worst_index == 3);
  CHECK(std::isinf(c.worst_ratio));
  g.set(3, 10.0);
  c = compare_buffers(g, e, {0.1, 0.05});
  CHECK(c.mismatches == 1);
  CHECK(c.worst_index == 2);
  CHECK(c.max_abs_err == doctest::Approx(0.7));
  e.set(0, std::numeric_limits<double>::infinity());
  g.set(0, std::numeric_limits<double>::infinity());
  CHECK(compare_buffers(g, e, {0.1, 0.05}).mismatches == 1);
}

TEST_CASE("compare: multi-dimensional index of the worst element") {
  CHECK(format_index(0, {5, 256}) == "[0, 0]");
  CHECK(format_index(4 * 256 + 17, {5, 256}) == "[4, 17]");
  CHECK(format_index(7, {8}) == "[7]");
}

TEST_CASE("timing summary: median, minimum and spread") {
  TimingStats t = summarize_samples({5, 1, 3, 2, 4}, "cpu");
  CHECK(t.median_ms == 3);
  CHECK(t.min_ms == 1);
  CHECK(t.runs == 5);
  CHECK(t.spread == doctest::Approx((4.0 - 1.0) / 3.0));
  CHECK(summarize_samples({2, 4}, "gpu").median_ms == 3);
}
