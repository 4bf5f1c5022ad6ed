// Math and bit intrinsics on the emu device, against host computations of what CUDA defines.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {
unsigned reverse_bits(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i)
    if (x & (1u << i)) r |= 1u << (31 - i);
  return r;
}
unsigned leading_zeros(unsigned x) {
  unsigned n = 0;
  for (int i = 31; i >= 0 && !(x & (1u << i)); --i) ++n;
  return n;
}
unsigned first_set(unsigned x) {
  for (unsigned i = 0; i < 32; ++i)
    if (x & (1u << i)) return i + 1;
  return 0;
}
unsigned set_bits(unsigned x) {
  unsigned n = 0;
  for (; x; x >>= 1) n += x & 1;
  return n;
}
}  // namespace

TEST_CASE("emu: math and bit intrinsics") {
  const EmuModule m = build("math.cu", "intrinsics", {"float*", "unsigned*", "const float*", "const unsigned*", "int"});
  const int n = 2000;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-6.0f, 6.0f);
  std::vector<float> x(n);
  std::vector<unsigned> bits(n);
  for (int i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = i < 4 ? std::vector<float>{0.0f, 1.0f, -1.0f, 0.5f}[static_cast<std::size_t>(i)] : d(rng);
    bits[static_cast<std::size_t>(i)] = i < 4 ? std::vector<unsigned>{0u, 1u, 0x80000000u, 0xffffffffu}[static_cast<std::size_t>(i)]
                                              : static_cast<unsigned>(rng());
  }
  std::vector<float> f(static_cast<std::size_t>(12 * n));
  std::vector<unsigned> u(static_cast<std::size_t>(5 * n));
  float* pf = f.data();
  unsigned* pu = u.data();
  const float* px = x.data();
  const unsigned* pb = bits.data();
  int count = n;
  auto a = args(pf, pu, px, pb, count);
  m.launch(dims({(n + 255) / 256, 1, 1}, {256, 1, 1}), a.data());
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    const float v = x[static_cast<std::size_t>(i)];
    const unsigned b = bits[static_cast<std::size_t>(i)];
    auto F = [&](int k) { return f[static_cast<std::size_t>(k * n + i)]; };
    auto U = [&](int k) { return u[static_cast<std::size_t>(k * n + i)]; };
    CHECK(F(0) == doctest::Approx(1.0 / std::sqrt(std::fabs(v) + 1.0)).epsilon(1e-6));
    CHECK(F(1) == doctest::Approx(std::exp(v)).epsilon(1e-6));
    CHECK(F(2) == doctest::Approx(std::log(std::fabs(v) + 1.0)).epsilon(1e-6));
    CHECK(F(3) == doctest::Approx(std::sin(v) + std::cos(v)).epsilon(1e-5).scale(1.0));
    CHECK(F(4) == doctest::Approx(v / 3.0).epsilon(1e-6));
    CHECK(F(5) == 1.0f / (v + 10.0f));
    CHECK(F(6) == std::sqrt(std::fabs(v)));
    CHECK(F(7) == std::fma(v, 2.0f, 1.0f));
    CHECK(F(8) == (v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v));
    CHECK(F(9) == v + v);
    CHECK(F(10) == std::fmax(v, 0.5f) + std::fmin(v, -0.5f) + std::fmax(v, 0.25f));
    CHECK(F(11) == doctest::Approx(std::exp(v) + std::sqrt(std::fabs(v)) + std::tanh(v)).epsilon(1e-6));
    CHECK(U(0) == set_bits(b));
    CHECK(U(1) == leading_zeros(b));
    CHECK(U(2) == first_set(b));
    CHECK(U(3) == reverse_bits(b));
    const int r = static_cast<int>(b % 7) - 3;
    CHECK(U(4) == (b < 1000u ? b : 1000u) + static_cast<unsigned>(r > 0 ? r : 0));
  }
}
