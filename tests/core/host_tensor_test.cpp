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

// A KV cache's addressed pages are drawn as the spans of one stream laid end to end: splitting the
// same elements into spans, across a stretch's boundary and with gaps between, moves values, never
// changes them.
TEST_CASE("host tensor: spans are drawn as one buffer laid end to end, and nothing between them is touched") {
  InputDist dist;
  const std::size_t first = 1'500'000, second = 700'000, gap_at = 2'000'000, n = 3'000'000;
  HostTensor whole(DType::f32, first + second), spans(DType::f32, n);
  Rng a(42), b(42);
  draw_spans(whole, dist, a, {}, {{0, first + second}});
  for (std::size_t i = 0; i < n; ++i) spans.set(i, -7.0);
  draw_spans(spans, dist, b, {}, {{10, 10 + first}, {gap_at, gap_at + second}});
  std::size_t moved = 0, untouched = 0;
  for (std::size_t i = 0; i < first; ++i) moved += spans.at(10 + i) == whole.at(i);
  for (std::size_t i = 0; i < second; ++i) moved += spans.at(gap_at + i) == whole.at(first + i);
  for (std::size_t i = 0; i < 10; ++i) untouched += spans.at(i) == -7.0;
  for (std::size_t i = 10 + first; i < gap_at; ++i) untouched += spans.at(i) == -7.0;
  for (std::size_t i = gap_at + second; i < n; ++i) untouched += spans.at(i) == -7.0;
  CHECK(moved == first + second);
  CHECK(untouched == n - first - second);

  // generate_tensor is the one-span case.
  Rng c(42);
  const HostTensor generated = generate_tensor(DType::f32, first + second, dist, c, 1);
  Rng d(42);
  HostTensor drawn(DType::f32, first + second);
  draw_spans(drawn, dist, d, row_scales(dist, d, 1), {{0, first + second}});
  CHECK(generated.bytes == drawn.bytes);
}

TEST_CASE("host tensor: a span's elements take the scale of the row they lie in") {
  InputDist dist;
  const std::size_t per_row = 100'000;
  HostTensor t(DType::f32, 2 * per_row);
  Rng rng(9);
  draw_spans(t, dist, rng, {1.0, 1000.0}, {{per_row / 2, per_row + per_row / 2}});
  double low = 0, high = 0;
  for (std::size_t i = per_row / 2; i < per_row; ++i) low += t.at(i) * t.at(i);
  for (std::size_t i = per_row; i < per_row + per_row / 2; ++i) high += t.at(i) * t.at(i);
  CHECK(std::sqrt(high / low) == doctest::Approx(1000.0).epsilon(0.05));
}
