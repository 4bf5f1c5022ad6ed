// The ziggurat's draws against the standard normal's own figures: moments, and how often a draw
// lands past 1, 2, 3 and the tail's start, where the method changes its path.
#include <doctest/doctest.h>

#include <cmath>

#include "core/normal_draw.hpp"

using namespace hone;

TEST_CASE("normal draw: the moments and the tails of N(0, 1), through every path of the ziggurat") {
  Rng rng(2026);
  const int n = 4'000'000;
  double sum = 0, sq = 0, fourth = 0, largest = 0;
  int positive = 0, past1 = 0, past2 = 0, past3 = 0, in_tail = 0;
  for (int i = 0; i < n; ++i) {
    const double x = standard_normal(rng);
    sum += x;
    sq += x * x;
    fourth += x * x * x * x;
    positive += x > 0;
    const double a = std::abs(x);
    past1 += a > 1;
    past2 += a > 2;
    past3 += a > 3;
    in_tail += a > 3.442619855899;
    largest = std::max(largest, a);
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(std::abs(mean) < 0.003);
  CHECK(var == doctest::Approx(1.0).epsilon(0.004));
  CHECK(fourth / n == doctest::Approx(3.0).epsilon(0.015));  // kurtosis: the shape, not only the spread
  CHECK(double(positive) / n == doctest::Approx(0.5).epsilon(0.003));
  // P(|x| > k) = erfc(k / sqrt 2); the binomial spread at 4M draws is well inside these bounds.
  CHECK(double(past1) / n == doctest::Approx(std::erfc(1 / std::sqrt(2.0))).epsilon(0.005));
  CHECK(double(past2) / n == doctest::Approx(std::erfc(2 / std::sqrt(2.0))).epsilon(0.015));
  CHECK(double(past3) / n == doctest::Approx(std::erfc(3 / std::sqrt(2.0))).epsilon(0.05));
  CHECK(double(in_tail) / n == doctest::Approx(std::erfc(3.442619855899 / std::sqrt(2.0))).epsilon(0.08));
  CHECK(largest > 4.5);  // the tail is drawn, not cut at its start
}
