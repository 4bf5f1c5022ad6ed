// __hfma, __hfma2, __double2half and __double2bfloat16 round once, as the device does: every
// result is compared with the exact value rounded by integer arithmetic here. Computing in float
// and rounding again would get the crafted cases below wrong (a tie created by the first rounding).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

using i128 = __int128;
using u128 = unsigned __int128;

struct Format {
  int precision;  // significand bits with the implicit one: half 11, bf16 8
  int bias;       // half 15, bf16 127
  int emin() const { return 1 - bias; }
  int emax() const { return bias; }
};
constexpr Format kHalf{11, 15}, kBf16{8, 127};

// value = sign * n * 2^scale
struct Exact {
  bool negative = false;
  u128 n = 0;
  int scale = 0;
};

Exact decode(const Format& f, std::uint16_t bits) {
  const int field = (bits >> (f.precision - 1)) & ((1 << (16 - f.precision)) - 1);
  const std::uint32_t mant = bits & ((1u << (f.precision - 1)) - 1);
  Exact e;
  e.negative = bits >> 15;
  e.n = field == 0 ? mant : mant + (1u << (f.precision - 1));
  e.scale = (field == 0 ? f.emin() : field - f.bias) - (f.precision - 1);
  return e;
}

int top_bit(u128 v) {
  int b = -1;
  while (v) {
    v >>= 1;
    ++b;
  }
  return b;
}

// Round to nearest even into the format: the reference the emulator must match.
std::uint16_t round_exact(const Format& f, const Exact& x) {
  const std::uint16_t sign = x.negative ? 0x8000 : 0;
  if (x.n == 0) return sign;
  int e = std::max(top_bit(x.n) + x.scale, f.emin());
  const int shift = e - (f.precision - 1) - x.scale;  // how many bits of n fall below one ulp
  u128 m;
  if (shift <= 0) {
    m = x.n << -shift;
  } else {
    m = x.n >> shift;
    const u128 rest = x.n & ((u128{1} << shift) - 1), half = u128{1} << (shift - 1);
    if (rest > half || (rest == half && (m & 1))) ++m;
  }
  if (m >> f.precision) {  // rounded up to the next power of two
    m >>= 1;
    ++e;
  }
  const int exp_bits = 16 - f.precision;
  if (e > f.emax()) return static_cast<std::uint16_t>(sign | (((1 << exp_bits) - 1) << (f.precision - 1)));
  const bool normal = (m >> (f.precision - 1)) != 0;
  const int field = normal ? e - f.emin() + 1 : 0;
  const u128 mant = m & ((u128{1} << (f.precision - 1)) - 1);
  return static_cast<std::uint16_t>(sign | (field << (f.precision - 1)) | static_cast<std::uint16_t>(mant));
}

std::uint16_t fma_exact(const Format& f, std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  const Exact x = decode(f, a), y = decode(f, b), z = decode(f, c);
  const int scale = std::min(x.scale + y.scale, z.scale);
  const i128 p = static_cast<i128>(x.n * y.n << (x.scale + y.scale - scale)) * (x.negative != y.negative ? -1 : 1);
  const i128 q = static_cast<i128>(z.n << (z.scale - scale)) * (z.negative ? -1 : 1);
  const i128 s = p + q;
  Exact r;
  r.negative = s < 0 || (s == 0 && x.negative != y.negative && z.negative);  // -0 only from -0 + -0
  r.n = static_cast<u128>(s < 0 ? -s : s);
  r.scale = scale;
  return round_exact(f, r);
}

Exact exact_double(double d) {
  Exact e;
  e.negative = std::signbit(d);
  int exp = 0;
  const double frac = std::frexp(std::fabs(d), &exp);  // d = frac * 2^exp, frac in [0.5, 1)
  e.n = static_cast<u128>(std::ldexp(frac, 53));
  e.scale = exp - 53;
  return e;
}

// Finite 16-bit values whose exponent field lies in [lo, hi]: the exact sums then fit in 128 bits.
std::uint16_t random_value(std::mt19937& rng, const Format& f, int lo, int hi) {
  const int field = std::uniform_int_distribution<int>(lo, hi)(rng);
  const std::uint32_t mant = rng() & ((1u << (f.precision - 1)) - 1);
  return static_cast<std::uint16_t>(((rng() & 1u) << 15) | (field << (f.precision - 1)) | mant);
}

void check_fma(const std::string& entry, const Format& f, std::vector<std::uint16_t> a, std::vector<std::uint16_t> b,
               std::vector<std::uint16_t> c) {
  const EmuModule m = build("rounding.cu", entry, {"unsigned short*", "const unsigned short*", "const unsigned short*",
                                                   "const unsigned short*", "int"});
  int n = static_cast<int>(a.size());
  std::vector<std::uint16_t> out(2 * a.size());
  void* o = out.data();
  const void *pa = a.data(), *pb = b.data(), *pc = c.data();
  auto args_ = args(o, pa, pb, pc, n);
  m.launch(dims({(n + 255) / 256, 1, 1}, {256, 1, 1}), args_.data());
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint16_t expect = fma_exact(f, a[i], b[i], c[i]);
    if (out[i] != expect || out[n + i] != expect) {
      if (++wrong <= 5) {
        std::ostringstream s;
        s << entry << std::hex << ": fma(0x" << a[i] << ", 0x" << b[i] << ", 0x" << c[i] << ") = 0x" << out[i]
          << " / 0x" << out[n + i] << ", exact rounding 0x" << expect;
        MESSAGE(s.str());
      }
    }
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("emu: __hfma and __hfma2 on half round the exact a*b+c once") {
  std::mt19937 rng(7);
  // Crafted: a*b is a tie and c a tiny nudge below it; rounding to float first erases the nudge.
  std::vector<std::uint16_t> a{0x3c01}, b{0x3e00}, c{0x8001};
  for (int i = 0; i < 100000; ++i) {
    a.push_back(random_value(rng, kHalf, 0, 30));
    b.push_back(random_value(rng, kHalf, 0, 30));
    c.push_back(random_value(rng, kHalf, 0, 30));
  }
  check_fma("fma_half_bits", kHalf, a, b, c);
}

TEST_CASE("emu: __hfma and __hfma2 on bf16 round the exact a*b+c once") {
  std::mt19937 rng(8);
  std::vector<std::uint16_t> a{0x3f81}, b{0x3fc0}, c{0xab80};  // the same trap, at bf16's precision
  for (int i = 0; i < 100000; ++i) {
    a.push_back(random_value(rng, kBf16, 127 - 20, 127 + 20));
    b.push_back(random_value(rng, kBf16, 127 - 20, 127 + 20));
    c.push_back(random_value(rng, kBf16, 127 - 30, 127 + 30));
  }
  check_fma("fma_bf16_bits", kBf16, a, b, c);
}

TEST_CASE("emu: __double2half and __double2bfloat16 round the double once") {
  std::mt19937_64 rng(9);
  // Just below and above ties of both formats, where going through float would land on the tie.
  std::vector<double> in{1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40), 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                         1.0 + std::ldexp(1.0, -8) - std::ldexp(1.0, -40), 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40),
                         -(3.0 + std::ldexp(3.0, -11) - std::ldexp(1.0, -45)), 65520.0 - 1e-9, 65520.0, 1e-9, 3e-8, 0.0, -0.0};
  std::uniform_real_distribution<double> exponent(-30, 20);
  for (int i = 0; i < 100000; ++i) {
    const double d = std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53, static_cast<int>(exponent(rng)));
    in.push_back(rng() & 1 ? -d : d);
  }
  const EmuModule m = build("rounding.cu", "from_double_bits", {"unsigned short*", "const double*", "int"});
  int n = static_cast<int>(in.size());
  std::vector<std::uint16_t> out(2 * in.size());
  void* o = out.data();
  const void* x = in.data();
  auto a = args(o, x, n);
  m.launch(dims({(n + 255) / 256, 1, 1}, {256, 1, 1}), a.data());
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const Exact e = exact_double(in[static_cast<std::size_t>(i)]);
    const std::uint16_t h = round_exact(kHalf, e), bf = round_exact(kBf16, e);
    if (out[static_cast<std::size_t>(i)] != h || out[static_cast<std::size_t>(n + i)] != bf) {
      if (++wrong <= 5) {
        std::ostringstream s;
        s << in[static_cast<std::size_t>(i)] << std::hex << ": half 0x" << out[static_cast<std::size_t>(i)] << " (exact 0x"
          << h << "), bf16 0x" << out[static_cast<std::size_t>(n + i)] << " (exact 0x" << bf << ")";
        MESSAGE(s.str());
      }
    }
  }
  CHECK(wrong == 0);
}
