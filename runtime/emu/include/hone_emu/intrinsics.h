#pragma once
// CUDA's math and bit intrinsics on the CPU. Fast-math intrinsics (__expf, ...) are computed at
// full precision: kernels are judged against a tolerance, so being more exact is safe.
#include <math.h>
#include <type_traits>

namespace hone_emu {
template <class To, class From>
inline To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
  To out;
  __builtin_memcpy(&out, &v, sizeof(To));
  return out;
}
}  // namespace hone_emu

// glibc's <math.h> already declares __expf, __logf, ... (undefined in libm), so these names can
// only be macros; math.h has been included above, so they cannot break its declarations.
#define __expf(x) ::expf(x)
#define __exp10f(x) ::exp10f(x)
#define __exp2f(x) ::exp2f(x)
#define __logf(x) ::logf(x)
#define __log2f(x) ::log2f(x)
#define __log10f(x) ::log10f(x)
#define __sinf(x) ::sinf(x)
#define __cosf(x) ::cosf(x)
#define __tanf(x) ::tanf(x)
#define __powf(x, y) ::powf(x, y)
#define __tanhf(x) ::tanhf(x)

inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }
// NaN saturates to 0, as on the device.
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

inline float __int_as_float(int x) { return hone_emu::bit_cast<float>(x); }
inline int __float_as_int(float x) { return hone_emu::bit_cast<int>(x); }
inline float __uint_as_float(unsigned int x) { return hone_emu::bit_cast<float>(x); }
inline unsigned int __float_as_uint(float x) { return hone_emu::bit_cast<unsigned int>(x); }
inline double __longlong_as_double(long long x) { return hone_emu::bit_cast<double>(x); }
inline long long __double_as_longlong(double x) { return hone_emu::bit_cast<long long>(x); }
inline int __double2hiint(double x) { return static_cast<int>(hone_emu::bit_cast<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return static_cast<int>(hone_emu::bit_cast<unsigned long long>(x)); }
inline double __hiloint2double(int hi, int lo) {
  return hone_emu::bit_cast<double>((static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) |
                                    static_cast<unsigned int>(lo));
}

// Conversions with explicit rounding (the process runs in round-to-nearest-even).
inline int __float2int_rn(float x) { return static_cast<int>(rintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned int>(rintf(x)); }
inline unsigned int __float2uint_rz(float x) { return static_cast<unsigned int>(x); }
inline long long __float2ll_rn(float x) { return static_cast<long long>(rintf(x)); }
inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline int __double2int_rn(double x) { return static_cast<int>(rint(x)); }
inline int __double2int_rz(double x) { return static_cast<int>(x); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) | __brev(static_cast<unsigned int>(x >> 32));
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned int>((bytes >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  const unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
  return static_cast<unsigned int>(v >> (shift & 31u));
}
inline int __mul24(int a, int b) { return (a << 8 >> 8) * (b << 8 >> 8); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return static_cast<long long>((static_cast<__int128>(a) * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline unsigned int __sad(int a, int b, unsigned int c) { return c + static_cast<unsigned int>(a > b ? a - b : b - a); }
inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return c + (a > b ? a - b : b - a); }

// min and max as device code has them: defined for every pair of arithmetic types, with the
// usual arithmetic conversions (int and unsigned compare as unsigned), floats as fminf/fmaxf.
namespace hone_emu {
template <class A, class B>
using arith_common = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value,
                                      decltype(A() + B())>;
}  // namespace hone_emu
template <class A, class B>
inline hone_emu::arith_common<A, B> min(A a, B b) {
  using C = hone_emu::arith_common<A, B>;
  if constexpr (std::is_floating_point<C>::value) return fmin(static_cast<C>(a), static_cast<C>(b));
  else return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(a) : static_cast<C>(b);
}
template <class A, class B>
inline hone_emu::arith_common<A, B> max(A a, B b) {
  using C = hone_emu::arith_common<A, B>;
  if constexpr (std::is_floating_point<C>::value) return fmax(static_cast<C>(a), static_cast<C>(b));
  else return static_cast<C>(a) > static_cast<C>(b) ? static_cast<C>(a) : static_cast<C>(b);
}
// Plain overloads as well, so that types converting to float (__half, __nv_bfloat16) work too.
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
