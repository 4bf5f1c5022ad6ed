#include <doctest/doctest.h>

#include <cmath>

#include "core/host_tensor.hpp"

using namespace hone;

TEST_CASE("host tensor: a signalling NaN fill for every float dtype that has one, and none for the others") {
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    HostTensor x(t, 2);
    CHECK(fill_signalling_nan(x));
    CHECK(std::isnan(x.at(0)));
    CHECK(std::isnan(x.at(1)));
  }
  for (DType t : {DType::fp8, DType::i32, DType::i64}) {
    HostTensor x(t, 2);
    const auto bytes = x.bytes;
    CHECK_FALSE(fill_signalling_nan(x));
    CHECK(x.bytes == bytes);
  }
}

TEST_CASE("host tensor: a normal fill has the asked mean and spread, neighbours uncorrelated, and an odd count filled to the end") {
  InputDist d;
  d.mean = 2.0;
  d.std = 3.0;
  Rng rng(17);
  const std::size_t n = 200001;  // odd, and not a whole number of the draw's chunks
  const HostTensor t = generate_tensor(DType::f64, n, d, rng, 1);
  double sum = 0, sq = 0, cross = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = t.at(i);
    sum += v;
    sq += v * v;
    if (i % 2 == 0 && i + 1 < n) cross += (v - 2.0) * (t.at(i + 1) - 2.0);
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  CHECK(mean == doctest::Approx(2.0).epsilon(0.02));
  CHECK(std::sqrt(var) == doctest::Approx(3.0).epsilon(0.01));
  CHECK(std::abs(cross / (n / 2) / 9.0) < 0.01);  // neighbours are independent
  CHECK(std::isfinite(t.at(n - 1)));
  CHECK(t.at(n - 1) != t.at(n - 2));
}
