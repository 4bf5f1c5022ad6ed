#pragma once
// The emu device's <cuda_bf16.h>: __nv_bfloat16 and __nv_bfloat162 with CUDA's API. Conversions
// from float round to nearest even exactly as hone::float_to_bf16 (core/dtype.hpp) does.
#include "hone_emu/prelude.h"
#include "hone_emu/half_like.h"

namespace hone_emu {
inline unsigned short float_to_bf16_bits(float f) {
  unsigned int u = bit_cast<unsigned int>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<unsigned short>(u >> 16);
}
inline float bf16_bits_to_float(unsigned short b) { return bit_cast<float>(static_cast<unsigned int>(b) << 16); }
}  // namespace hone_emu

struct __nv_bfloat16_raw {
  unsigned short x;
};
struct __nv_bfloat162_raw {
  unsigned short x, y;
};

struct __attribute__((aligned(2))) __nv_bfloat16 {
  unsigned short __x;

  __nv_bfloat16() = default;
  constexpr __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  __nv_bfloat16(float f) : __x(hone_emu::float_to_bf16_bits(f)) {}
  __nv_bfloat16(double f) : __nv_bfloat16(hone_emu::float_to_odd(f)) {}
  __nv_bfloat16(short v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(unsigned short v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(int v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(unsigned int v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(long v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(unsigned long v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(long long v) : __nv_bfloat16(static_cast<float>(v)) {}
  __nv_bfloat16(unsigned long long v) : __nv_bfloat16(static_cast<float>(v)) {}
  operator float() const { return hone_emu::bf16_bits_to_float(__x); }
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
};

struct __attribute__((aligned(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;

  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
  constexpr __nv_bfloat162(const __nv_bfloat162_raw& r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
  operator __nv_bfloat162_raw() const { return __nv_bfloat162_raw{x.__x, y.__x}; }
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  const unsigned int u = hone_emu::bit_cast<unsigned int>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return __nv_bfloat16(f);
  return __nv_bfloat16_raw{static_cast<unsigned short>(u >> 16)};
}
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(hone_emu::float_to_odd(d)); }  // one rounding
inline float __bfloat162float(__nv_bfloat16 b) { return static_cast<float>(b); }
inline __nv_bfloat16 __int2bfloat16_rn(int v) { return __nv_bfloat16(v); }
inline int __bfloat162int_rn(__nv_bfloat16 b) { return static_cast<int>(rintf(static_cast<float>(b))); }
inline int __bfloat162int_rz(__nv_bfloat16 b) { return static_cast<int>(static_cast<float>(b)); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline short __bfloat16_as_short(__nv_bfloat16 b) { return static_cast<short>(b.__x); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16_raw{v}; }
inline __nv_bfloat16 __short_as_bfloat16(short v) { return __nv_bfloat16_raw{static_cast<unsigned short>(v)}; }
inline bool __hisnan(__nv_bfloat16 b) { return (b.__x & 0x7fffu) > 0x7f80u; }
inline int __hisinf(__nv_bfloat16 b) { return b.__x == 0x7f80u ? 1 : (b.__x == 0xff80u ? -1 : 0); }

inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 v) { return __floats2bfloat162_rn(v.x, v.y); }
inline float2 __bfloat1622float2(__nv_bfloat162 v) { return make_float2(static_cast<float>(v.x), static_cast<float>(v.y)); }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 b) { return __nv_bfloat162(b, b); }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 v) { return v.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 v) { return v.y; }
inline __nv_bfloat162 __low2bfloat162(__nv_bfloat162 v) { return __nv_bfloat162(v.x, v.x); }
inline __nv_bfloat162 __high2bfloat162(__nv_bfloat162 v) { return __nv_bfloat162(v.y, v.y); }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 v) { return __nv_bfloat162(v.y, v.x); }

HONE_EMU_HALF_SCALAR_API(__nv_bfloat16)
HONE_EMU_HALF_PAIR_API(__nv_bfloat16, __nv_bfloat162)
