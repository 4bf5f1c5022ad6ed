#include <doctest/doctest.h>

#include <cmath>

#include "tuner/expected_improvement.hpp"

using namespace hone;

TEST_CASE("expected improvement: the mean and spread of several fits, point by point") {
  const auto p = combine_fits({{1.f, 2.f}, {3.f, 2.f}});
  REQUIRE(p.size() == 2);
  CHECK(p[0].mean == doctest::Approx(2.0));
  CHECK(p[0].spread == doctest::Approx(1.0));
  CHECK(p[1].mean == doctest::Approx(2.0));
  CHECK(p[1].spread == 0.0);
  CHECK_THROWS(combine_fits({}));
  CHECK_THROWS(combine_fits({{1.f}, {1.f, 2.f}}));
}

TEST_CASE("expected improvement: an uncertain point a little worse than the best beats a sure one as good") {
  const double best = 3.0;
  // Without spread it is the plain gain, never negative.
  CHECK(expected_improvement({2.5, 0.0}, best) == doctest::Approx(0.5));
  CHECK(expected_improvement({3.5, 0.0}, best) == 0.0);
  // The normal's closed form at z = 0: spread / sqrt(2 pi).
  CHECK(expected_improvement({3.0, 0.2}, best) == doctest::Approx(0.2 / std::sqrt(2.0 * M_PI)));
  const double sure = expected_improvement({3.0, 0.001}, best);
  const double unsure = expected_improvement({3.1, 0.3}, best);
  CHECK(unsure > 10 * sure);
  // More spread, more to expect; a worse mean, less.
  CHECK(expected_improvement({3.1, 0.4}, best) > unsure);
  CHECK(expected_improvement({3.3, 0.3}, best) < unsure);
  // Far below the best it is the gain itself.
  CHECK(expected_improvement({1.0, 0.1}, best) == doctest::Approx(2.0).epsilon(1e-6));
}
