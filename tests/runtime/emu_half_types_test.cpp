// bf16 and half on the emu device: conversions bit for bit against core/dtype.hpp, arithmetic
// against float-then-round.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype.hpp"
#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Every class of float: random bit patterns, the bf16 and f16 rounding ties and their
// neighbours, subnormals of both formats, infinities, NaNs, zeros, overflow thresholds.
std::vector<float> conversion_inputs() {
  std::vector<float> v;
  std::mt19937 rng(1234);
  for (int i = 0; i < 60000; ++i) v.push_back(float_of(rng()));
  std::uniform_real_distribution<float> moderate(-70000.0f, 70000.0f);
  for (int i = 0; i < 20000; ++i) v.push_back(moderate(rng));
  for (std::uint32_t hi = 0; hi < 0x10000; hi += 7) {
    const std::uint32_t base = hi << 16;
    for (std::uint32_t low : {0x7fffu, 0x8000u, 0x8001u, 0x0fffu, 0x1000u, 0x1001u, 0x3000u})
      v.push_back(float_of(base | low));
  }
  for (int e = -30; e <= 17; ++e)
    for (float m : {1.0f, 1.5f, 1.00048828125f, 1.000732421875f, 0.999f}) {
      v.push_back(std::ldexp(m, e));
      v.push_back(-std::ldexp(m, e));
    }
  for (float s : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 70000.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  float_of(0x7f800001u), float_of(0xffc12345u), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()})
    v.push_back(s);
  return v;
}

}  // namespace

TEST_CASE("emu: bf16 and half conversions equal core/dtype.hpp bit for bit") {
  const EmuModule m = build("half_types.cu", "conversions",
                            {"unsigned short*", "unsigned short*", "float*", "float*", "int*", "const float*", "int"});
  const std::vector<float> in = conversion_inputs();
  const int n = static_cast<int>(in.size());
  std::vector<std::uint16_t> bf(in.size()), h(in.size());
  std::vector<float> bf_back(in.size()), h_back(in.size());
  std::vector<int> agree(in.size(), 0);
  std::uint16_t* pbf = bf.data();
  std::uint16_t* ph = h.data();
  float* pbb = bf_back.data();
  float* phb = h_back.data();
  int* pa = agree.data();
  const float* x = in.data();
  int count = n;
  auto a = args(pbf, ph, pbb, phb, pa, x, count);
  m.launch(dims({64, 1, 1}, {256, 1, 1}), a.data());
  int bad = 0;
  for (std::size_t i = 0; i < in.size() && bad < 10; ++i) {
    const bool ok = bf[i] == float_to_bf16(in[i]) && h[i] == float_to_f16(in[i]) &&
                    bits_of(bf_back[i]) == bits_of(bf16_to_float(bf[i])) &&
                    bits_of(h_back[i]) == bits_of(f16_to_float(h[i])) && agree[i] == 1;
    if (!ok) {
      ++bad;
      FAIL_CHECK("input bits 0x" << std::hex << bits_of(in[i]) << ": bf16 0x" << bf[i] << " (host 0x"
                                 << float_to_bf16(in[i]) << "), f16 0x" << h[i] << " (host 0x" << float_to_f16(in[i])
                                 << "), spellings agree " << agree[i]);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("emu: bf16 arithmetic is float arithmetic rounded once to bf16") {
  const EmuModule m = build("half_types.cu", "bf16_arith",
                            {"__nv_bfloat16*", "const __nv_bfloat16*", "const __nv_bfloat16*",
                             "const __nv_bfloat16*", "int"});
  const int n = 4096, ops = 17;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-300.0f, 300.0f), small(-4.0f, 4.0f);
  std::vector<std::uint16_t> av(n), bv(n), cv(n), out(static_cast<std::size_t>(ops * n));
  for (int i = 0; i < n; ++i) {
    av[static_cast<std::size_t>(i)] = float_to_bf16(wide(rng));
    bv[static_cast<std::size_t>(i)] = float_to_bf16(i % 10 == 0 ? 0.5f : wide(rng));
    cv[static_cast<std::size_t>(i)] = float_to_bf16(small(rng));
  }
  void* po = out.data();
  const void* pa = av.data();
  const void* pb = bv.data();
  const void* pc = cv.data();
  int count = n;
  auto a = args(po, pa, pb, pc, count);
  m.launch(dims({n / 128, 1, 1}, {128, 1, 1}), a.data());

  auto r = [](float f) { return float_to_bf16(f); };
  auto f = [](std::uint16_t b) { return bf16_to_float(b); };
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    const std::size_t k = static_cast<std::size_t>(i);
    const float x = f(av[k]), y = f(bv[k]), z = f(cv[k]);
    auto at = [&](int op) { return out[static_cast<std::size_t>(op * n + i)]; };
    CHECK(at(0) == r(x + y));
    CHECK(at(1) == r(x - y));
    CHECK(at(2) == r(x * y));
    CHECK(at(3) == r(x / y));
    CHECK(at(4) == r(std::fma(x, y, z)));
    CHECK(at(5) == r(x + z));
    CHECK(at(6) == r(y * z));
    CHECK(at(7) == r(-x));
    CHECK(at(8) == r(std::fabs(x)));
    CHECK(at(9) == r(std::sqrt(std::fabs(x))));
    CHECK(at(10) == r(std::exp(z)));
    CHECK(at(11) == r(1.0f / std::sqrt(std::fabs(y))));
    CHECK(at(12) == r(std::fmax(x, y)));
    CHECK(at(13) == r(x < y ? 1.0f : 0.0f));
    // p = (x, y), q = (y, z): fma2(p, q, p + p * q), each step rounded to bf16.
    const float lo = f(r(std::fma(x, y, f(r(x + f(r(x * y))))))), hi = f(r(std::fma(y, z, f(r(y + f(r(y * z)))))));
    CHECK(at(14) == r(lo));
    CHECK(at(15) == r(hi));
    CHECK(at(16) == r(f(r(x + y)) * z));
  }
}

TEST_CASE("emu: half arithmetic rounds like the host conversion") {
  const EmuModule m = build("half_types.cu", "half_arith", {"__half*", "const __half*", "const __half*", "int"});
  const int n = 1024;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-200.0f, 200.0f);
  std::vector<std::uint16_t> av(n), bv(n), out(5 * n);
  for (int i = 0; i < n; ++i) {
    av[static_cast<std::size_t>(i)] = float_to_f16(d(rng));
    bv[static_cast<std::size_t>(i)] = float_to_f16(d(rng));
  }
  void* po = out.data();
  const void* pa = av.data();
  const void* pb = bv.data();
  int count = n;
  auto a = args(po, pa, pb, count);
  m.launch(dims({n / 256, 1, 1}, {256, 1, 1}), a.data());
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    const std::size_t k = static_cast<std::size_t>(i);
    const float x = f16_to_float(av[k]), y = f16_to_float(bv[k]);
    CHECK(out[k] == float_to_f16(x + y));
    CHECK(out[static_cast<std::size_t>(n) + k] == float_to_f16(x * y));
    CHECK(out[static_cast<std::size_t>(2 * n) + k] == float_to_f16(std::fma(x, y, x)));
    CHECK(out[static_cast<std::size_t>(3 * n) + k] == float_to_f16(x + y));
    CHECK(out[static_cast<std::size_t>(4 * n) + k] == float_to_f16(y + y));
  }
}
