#pragma once
// The emu device's <cuda_fp8.h>: the e4m3 type of weight-only FP8 kernels, __nv_fp8_e4m3 and its
// x2 / x4 packs, with CUDA's names (storage in __x, explicit conversions) so that one source
// compiles with NVRTC and here. Conversion from float rounds to nearest even and saturates to
// +-448 as CUDA's constructors do (__NV_SATFINITE), exactly as hone::float_to_e4m3
// (core/dtype.hpp); NaN becomes 0x7f. e5m2 is not emulated: no kernel of hone uses it.
#include "hone_emu/prelude.h"
#include "cuda_bf16.h"
#include "cuda_fp16.h"

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short int __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace hone_emu {
// From the float's bits: the exponent is rebiased from 127 to 7 and the 23-bit mantissa rounded
// to 3 bits, a carry moving into the exponent; below 2^-6 the value is a multiple of 2^-9,
// rounded by the float adder (adding 2^23 leaves no fraction bits).
inline unsigned char float_to_e4m3_bits(float f, bool saturate) {
  const unsigned int u = bit_cast<unsigned int>(f);
  const unsigned char sign = static_cast<unsigned char>((u >> 24) & 0x80u);
  const unsigned int a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7f;
  if (a >= 0x43e80000u)  // 464: half a step above 448, and ties go to 448's even mantissa
    return a == 0x43e80000u || saturate ? static_cast<unsigned char>(sign | 0x7e) : 0x7f;
  if (a < 0x3c800000u) {  // below 2^-6
    const float units = bit_cast<float>(a) * 512.0f;
    const float rounded = (units + 8388608.0f) - 8388608.0f;
    return static_cast<unsigned char>(sign | static_cast<unsigned char>(rounded));
  }
  const unsigned int r = a + 0x7ffffu + ((a >> 20) & 1u);
  return static_cast<unsigned char>(sign | ((r >> 20) - (120u << 3)));
}
inline float e4m3_bits_to_float(unsigned char c) {
  const unsigned int exp = (c >> 3) & 0xfu, mant = c & 7u;
  const unsigned int sign = static_cast<unsigned int>(c & 0x80u) << 24;
  if (exp == 15 && mant == 7) return bit_cast<float>(0x7fffffffu);
  if (exp == 0) return bit_cast<float>(bit_cast<unsigned int>(static_cast<float>(mant) * 0.001953125f) | sign);  // mant * 2^-9
  return bit_cast<float>(sign | ((exp + 120u) << 23) | (mant << 20));
}
// e5m2 asked of an emulation without it stops the kernel rather than reading garbage.
inline void require_e4m3(__nv_fp8_interpretation_t k) {
  if (k != __NV_E4M3) __builtin_trap();
}
}  // namespace hone_emu

inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
  hone_emu::require_e4m3(k);
  return hone_emu::float_to_e4m3_bits(x, s == __NV_SATFINITE);
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t s, __nv_fp8_interpretation_t k) {
  return static_cast<__nv_fp8x2_storage_t>(__nv_cvt_float_to_fp8(x.x, s, k) | (__nv_cvt_float_to_fp8(x.y, s, k) << 8));
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t k) {
  hone_emu::require_e4m3(k);
  return static_cast<__half_raw>(__half(hone_emu::e4m3_bits_to_float(x)));  // every e4m3 value is a half
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t k) {
  return __half2_raw{__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x & 0xffu), k).x,
                     __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x >> 8), k).x};
}

struct __attribute__((aligned(1))) __nv_fp8_e4m3 {
  __nv_fp8_storage_t __x;

  __nv_fp8_e4m3() = default;
  explicit __nv_fp8_e4m3(float f) : __x(hone_emu::float_to_e4m3_bits(f, true)) {}
  explicit __nv_fp8_e4m3(double f) : __nv_fp8_e4m3(static_cast<float>(f)) {}
  explicit __nv_fp8_e4m3(__half h) : __nv_fp8_e4m3(static_cast<float>(h)) {}
  explicit __nv_fp8_e4m3(__nv_bfloat16 b) : __nv_fp8_e4m3(static_cast<float>(b)) {}
  explicit __nv_fp8_e4m3(int v) : __nv_fp8_e4m3(static_cast<float>(v)) {}
  explicit operator float() const { return hone_emu::e4m3_bits_to_float(__x); }
  explicit operator __half() const { return __half(hone_emu::e4m3_bits_to_float(__x)); }
  explicit operator __nv_bfloat16() const { return __nv_bfloat16(hone_emu::e4m3_bits_to_float(__x)); }
};

struct __attribute__((aligned(2))) __nv_fp8x2_e4m3 {
  __nv_fp8x2_storage_t __x;

  __nv_fp8x2_e4m3() = default;
  explicit __nv_fp8x2_e4m3(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, __NV_E4M3)) {}
  explicit operator float2() const {
    return make_float2(hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x & 0xffu)),
                       hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x >> 8)));
  }
};

struct __attribute__((aligned(4))) __nv_fp8x4_e4m3 {
  __nv_fp8x4_storage_t __x;

  __nv_fp8x4_e4m3() = default;
  explicit __nv_fp8x4_e4m3(float4 f)
      : __x(static_cast<unsigned int>(__nv_cvt_float2_to_fp8x2(make_float2(f.x, f.y), __NV_SATFINITE, __NV_E4M3)) |
            (static_cast<unsigned int>(__nv_cvt_float2_to_fp8x2(make_float2(f.z, f.w), __NV_SATFINITE, __NV_E4M3)) << 16)) {}
  explicit operator float4() const {
    return make_float4(hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x)),
                       hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x >> 8)),
                       hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x >> 16)),
                       hone_emu::e4m3_bits_to_float(static_cast<unsigned char>(__x >> 24)));
  }
};

typedef __nv_fp8_e4m3 __nv_fp8_e4m3_t;
