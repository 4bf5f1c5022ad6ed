#include <doctest/doctest.h>

#include <cmath>

#include "validator/error_bias.hpp"

using namespace hone;

namespace {

// Values as a kernel computing them in fp32 would write them, and as the reference (double)
// would: both rounded to bf16 from slightly different reals.
struct Pair {
  HostTensor got, expected;
};

Pair rounded(std::size_t n, double relative_offset, double noise, std::uint64_t seed, double row_scale_spread = 1) {
  Pair p{HostTensor(DType::bf16, n), HostTensor(DType::bf16, n)};
  Rng rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    const double scale = std::pow(row_scale_spread, rng.uniform());
    const double v = rng.normal(0, 1) * scale;
    p.expected.set(i, v);
    p.got.set(i, v * (1 + relative_offset) + v * noise * rng.normal(0, 1));
  }
  return p;
}

}  // namespace

TEST_CASE("error bias: rounding units of the float dtypes, none for integers") {
  CHECK(rounding_unit(DType::bf16) == 0x1p-8);
  CHECK(rounding_unit(DType::f16) == 0x1p-11);
  CHECK(rounding_unit(DType::f32) == 0x1p-24);
  CHECK(rounding_unit(DType::i32) == 0);
  HostTensor a(DType::i32, 4), b(DType::i32, 4);
  a.set(0, 5);
  CHECK_FALSE(error_bias(a, b).biased());
}

TEST_CASE("error bias: unbiased rounding differences pass with room, a systematic 0.6% inside the tolerance does not") {
  // The candidate's fp32 result differs from the reference's by about one bf16 rounding unit at
  // random: the two round apart now and then, as often up as down.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Pair honest = rounded(1280, 0, 0x1p-8, seed);
    const ErrorBias b = error_bias(honest.got, honest.expected);
    CAPTURE(seed);
    CHECK(b.effective_elements > 700);
    CHECK(b.ratio() < 0.6);
  }
  const Pair biased = rounded(1280, 0.006, 0, 1);
  const ErrorBias b = error_bias(biased.got, biased.expected);
  CHECK(b.biased());
  CHECK(b.relative == doctest::Approx(0.006).epsilon(0.15));
  CHECK(b.relative / b.unit > 1.3);
  // Too small is biased as well.
  const Pair low = rounded(1280, -0.006, 0, 2);
  CHECK(error_bias(low.got, low.expected).biased());
  CHECK(error_bias(low.got, low.expected).relative < 0);
}

TEST_CASE("error bias: an offset leans too, and says which way") {
  Pair p = rounded(1280, 0, 0, 4);
  for (std::size_t i = 0; i < p.got.count; ++i) p.got.set(i, p.expected.at(i) + 0.01);
  const ErrorBias b = error_bias(p.got, p.expected);
  CHECK(b.biased());
  CHECK_FALSE(b.in_magnitude);
  CHECK(b.relative > 0);
  const Pair scaled = rounded(1280, 0.006, 0, 5);
  CHECK(error_bias(scaled.got, scaled.expected).in_magnitude);
}

TEST_CASE("error bias: the margin is for the effective number of elements: few carry a mixed-scale output") {
  const Pair even = rounded(4096, 0, 0, 3);
  const Pair mixed = rounded(4096, 0, 0, 3, 1e4);  // magnitudes over four decades: a few elements dominate
  const ErrorBias e = error_bias(even.got, even.expected), m = error_bias(mixed.got, mixed.expected);
  CHECK(m.effective_elements < e.effective_elements / 4);
  CHECK(m.bound > e.bound);
  CHECK(e.bound == doctest::Approx(e.unit * (kBiasFraction + kBiasMargin / std::sqrt(e.effective_elements))));
}

TEST_CASE("error bias: non-finite elements are left to the per-element check, an all-zero expectation says nothing") {
  HostTensor got(DType::f32, 3), expected(DType::f32, 3);
  got.set(0, std::nan(""));
  CHECK(error_bias(got, expected).relative == 0);
  CHECK_FALSE(error_bias(got, expected).biased());
  HostTensor f32_got(DType::f32, 1000), f32_expected(DType::f32, 1000);
  for (int i = 0; i < 1000; ++i) {
    f32_expected.set(i, 1 + i % 7);
    f32_got.set(i, (1 + i % 7) * (1 + 4e-7));  // a few fp32 units, all one way: what exp in fp32 does to a head
  }
  const ErrorBias f = error_bias(f32_got, f32_expected);
  CHECK(f.bound == kBiasFloor);
  CHECK_FALSE(f.biased());
}

TEST_CASE("error bias: over the checked ranges only, so that elements exact by construction do not dilute it") {
  // A state pool of 16 states of 256 values, one of them addressed and updated 1% too large;
  // the other 15 come back exactly as they went in.
  const std::int64_t state = 256, states = 16;
  HostTensor got(DType::bf16, static_cast<std::size_t>(state * states)), expected(DType::bf16, static_cast<std::size_t>(state * states));
  Rng rng(7);
  for (std::size_t i = 0; i < got.count; ++i) {
    const double v = rng.normal(0, 1);
    expected.set(i, v);
    const auto at = static_cast<std::int64_t>(i);
    got.set(i, at >= 3 * state && at < 4 * state ? v * 1.01 : v);
  }
  CHECK_FALSE(error_bias(got, expected).biased());  // diluted sixteen times
  const ErrorBias b = error_bias(got, expected, {{3 * state, 4 * state}});
  CHECK(b.biased());
  CHECK(b.relative > 0.005);
}
