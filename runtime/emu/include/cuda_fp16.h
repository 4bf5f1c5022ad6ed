#pragma once
// The emu device's <cuda_fp16.h>: __half and __half2 with CUDA's API. Conversions from float round
// to nearest even exactly as hone::float_to_f16 (core/dtype.hpp) does.
#include "hone_emu/prelude.h"
#include "hone_emu/half_like.h"

namespace hone_emu {
inline unsigned short float_to_f16_bits(float f) {
  const unsigned int x = bit_cast<unsigned int>(f);
  const unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // rounds to infinity
  if (abs < 0x38800000u) {
    // Subnormal: in units of the smallest subnormal (2^-24) the value is an exact float, and
    // rintf rounds it to nearest even.
    const float units = bit_cast<float>(abs) * 16777216.0f;
    return static_cast<unsigned short>(sign | static_cast<unsigned int>(rintf(units)));
  }
  abs += 0xfffu + ((abs >> 13) & 1u);  // round to nearest even at bit 13
  abs -= 0x38000000u;                  // exponent bias 127 -> 15
  return static_cast<unsigned short>(sign | (abs >> 13));
}
inline float f16_bits_to_float(unsigned short h) {
  const unsigned int sign = static_cast<unsigned int>(h & 0x8000u) << 16;
  const unsigned int exp = (h >> 10) & 0x1fu;
  const unsigned int mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24, exact
    return sign ? -v : v;
  }
  if (exp == 31) return bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}
}  // namespace hone_emu

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

struct __attribute__((aligned(2))) __half {
  unsigned short __x;

  __half() = default;
  constexpr __half(const __half_raw& r) : __x(r.x) {}
  __half(float f) : __x(hone_emu::float_to_f16_bits(f)) {}
  __half(double f) : __half(hone_emu::float_to_odd(f)) {}
  __half(short v) : __half(static_cast<float>(v)) {}
  __half(unsigned short v) : __half(static_cast<float>(v)) {}
  __half(int v) : __half(static_cast<float>(v)) {}
  __half(unsigned int v) : __half(static_cast<float>(v)) {}
  __half(long v) : __half(static_cast<float>(v)) {}
  __half(unsigned long v) : __half(static_cast<float>(v)) {}
  __half(long long v) : __half(static_cast<float>(v)) {}
  __half(unsigned long long v) : __half(static_cast<float>(v)) {}
  operator float() const { return hone_emu::f16_bits_to_float(__x); }
  operator __half_raw() const { return __half_raw{__x}; }
};

struct __attribute__((aligned(4))) __half2 {
  __half x, y;

  __half2() = default;
  constexpr __half2(__half a, __half b) : x(a), y(b) {}
  constexpr __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half(hone_emu::float_to_odd(d)); }  // one rounding
inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half __int2half_rn(int v) { return __half(v); }
inline int __half2int_rn(__half h) { return static_cast<int>(rintf(static_cast<float>(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(static_cast<float>(h)); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline __half __ushort_as_half(unsigned short v) { return __half_raw{v}; }
inline __half __short_as_half(short v) { return __half_raw{static_cast<unsigned short>(v)}; }
inline bool __hisnan(__half h) { return (h.__x & 0x7fffu) > 0x7c00u; }
inline int __hisinf(__half h) { return h.__x == 0x7c00u ? 1 : (h.__x == 0xfc00u ? -1 : 0); }

inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
inline __half2 __float22half2_rn(float2 v) { return __floats2half2_rn(v.x, v.y); }
inline float2 __half22float2(__half2 v) { return make_float2(static_cast<float>(v.x), static_cast<float>(v.y)); }
inline __half2 __half2half2(__half h) { return __half2(h, h); }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
inline __half __low2half(__half2 v) { return v.x; }
inline __half __high2half(__half2 v) { return v.y; }
inline __half2 __low2half2(__half2 v) { return __half2(v.x, v.x); }
inline __half2 __high2half2(__half2 v) { return __half2(v.y, v.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 v) { return __half2(v.y, v.x); }

HONE_EMU_HALF_SCALAR_API(__half)
HONE_EMU_HALF_PAIR_API(__half, __half2)
