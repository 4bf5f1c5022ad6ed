#pragma once
// The arithmetic both 16-bit float types share (__half and __nv_bfloat16, each with its pair
// type): every operation is computed in float and rounded once to the 16-bit type. For add,
// subtract, multiply, divide and sqrt this equals the device's single rounding (float has more
// than twice the bits plus two). fma is exact in double up to one rounding, which is done "to
// odd" (see round_to_odd.h), and so is the step to float: the final rounding to 16 bits is then
// the one rounding of the exact a*b+c, as on the device.
#include "hone_emu/atomics.h"
#include "hone_emu/round_to_odd.h"
#include "hone_emu/warp.h"

namespace hone_emu {
inline float relu_keep_nan(float v) { return v != v ? v : (v < 0.0f ? 0.0f : v); }
inline float saturate_01(float v) { return v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f; }
}  // namespace hone_emu

#define HONE_EMU_HALF_SCALAR_API(T)                                                                  \
  inline T operator+(T a, T b) { return T(static_cast<float>(a) + static_cast<float>(b)); }         \
  inline T operator-(T a, T b) { return T(static_cast<float>(a) - static_cast<float>(b)); }         \
  inline T operator*(T a, T b) { return T(static_cast<float>(a) * static_cast<float>(b)); }         \
  inline T operator/(T a, T b) { return T(static_cast<float>(a) / static_cast<float>(b)); }         \
  inline T operator-(T a) { return T(-static_cast<float>(a)); }                                      \
  inline T operator+(T a) { return a; }                                                              \
  inline T& operator+=(T& a, T b) { return a = a + b; }                                             \
  inline T& operator-=(T& a, T b) { return a = a - b; }                                             \
  inline T& operator*=(T& a, T b) { return a = a * b; }                                             \
  inline T& operator/=(T& a, T b) { return a = a / b; }                                             \
  inline T& operator++(T& a) { return a = a + T(1.0f); }                                            \
  inline T& operator--(T& a) { return a = a - T(1.0f); }                                            \
  inline T operator++(T& a, int) { T old = a; ++a; return old; }                                    \
  inline T operator--(T& a, int) { T old = a; --a; return old; }                                    \
  inline bool operator==(T a, T b) { return static_cast<float>(a) == static_cast<float>(b); }       \
  inline bool operator!=(T a, T b) { return static_cast<float>(a) != static_cast<float>(b); }       \
  inline bool operator<(T a, T b) { return static_cast<float>(a) < static_cast<float>(b); }         \
  inline bool operator<=(T a, T b) { return static_cast<float>(a) <= static_cast<float>(b); }       \
  inline bool operator>(T a, T b) { return static_cast<float>(a) > static_cast<float>(b); }         \
  inline bool operator>=(T a, T b) { return static_cast<float>(a) >= static_cast<float>(b); }       \
  inline T __hadd(T a, T b) { return a + b; }                                                        \
  inline T __hsub(T a, T b) { return a - b; }                                                        \
  inline T __hmul(T a, T b) { return a * b; }                                                        \
  inline T __hdiv(T a, T b) { return a / b; }                                                        \
  inline T __hadd_rn(T a, T b) { return a + b; }                                                     \
  inline T __hsub_rn(T a, T b) { return a - b; }                                                     \
  inline T __hmul_rn(T a, T b) { return a * b; }                                                     \
  inline T __hfma(T a, T b, T c) {                                                                   \
    return T(hone_emu::float_to_odd(hone_emu::fma_to_odd(static_cast<float>(a), static_cast<float>(b), \
                                                          static_cast<float>(c))));                   \
  }                                                                                                  \
  inline T __hadd_sat(T a, T b) { return T(hone_emu::saturate_01(static_cast<float>(a + b))); }     \
  inline T __hsub_sat(T a, T b) { return T(hone_emu::saturate_01(static_cast<float>(a - b))); }     \
  inline T __hmul_sat(T a, T b) { return T(hone_emu::saturate_01(static_cast<float>(a * b))); }     \
  inline T __hfma_sat(T a, T b, T c) { return T(hone_emu::saturate_01(static_cast<float>(__hfma(a, b, c)))); } \
  inline T __hfma_relu(T a, T b, T c) { return T(hone_emu::relu_keep_nan(static_cast<float>(__hfma(a, b, c)))); } \
  inline T __hneg(T a) { return -a; }                                                                \
  inline T __habs(T a) { return T(fabsf(static_cast<float>(a))); }                                   \
  inline T __hmax(T a, T b) { return T(fmaxf(static_cast<float>(a), static_cast<float>(b))); }      \
  inline T __hmin(T a, T b) { return T(fminf(static_cast<float>(a), static_cast<float>(b))); }      \
  inline T __hmax_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmax(a, b)); }     \
  inline T __hmin_nan(T a, T b) { return __hisnan(a) ? a : (__hisnan(b) ? b : __hmin(a, b)); }     \
  inline bool __heq(T a, T b) { return a == b; }                                                     \
  inline bool __hne(T a, T b) { return a != b; }                                                     \
  inline bool __hlt(T a, T b) { return a < b; }                                                      \
  inline bool __hle(T a, T b) { return a <= b; }                                                     \
  inline bool __hgt(T a, T b) { return a > b; }                                                      \
  inline bool __hge(T a, T b) { return a >= b; }                                                     \
  inline bool __hequ(T a, T b) { return !(a < b) && !(a > b); }                                    \
  inline bool __hneu(T a, T b) { return !(a == b); }                                                 \
  inline bool __hltu(T a, T b) { return !(a >= b); }                                                 \
  inline bool __hleu(T a, T b) { return !(a > b); }                                                  \
  inline bool __hgtu(T a, T b) { return !(a <= b); }                                                 \
  inline bool __hgeu(T a, T b) { return !(a < b); }                                                  \
  inline T hsqrt(T a) { return T(sqrtf(static_cast<float>(a))); }                                    \
  inline T hrsqrt(T a) { return T(1.0f / sqrtf(static_cast<float>(a))); }                           \
  inline T hrcp(T a) { return T(1.0f / static_cast<float>(a)); }                                     \
  inline T hexp(T a) { return T(expf(static_cast<float>(a))); }                                      \
  inline T hexp2(T a) { return T(exp2f(static_cast<float>(a))); }                                    \
  inline T hexp10(T a) { return T(exp10f(static_cast<float>(a))); }                                  \
  inline T hlog(T a) { return T(logf(static_cast<float>(a))); }                                      \
  inline T hlog2(T a) { return T(log2f(static_cast<float>(a))); }                                    \
  inline T hlog10(T a) { return T(log10f(static_cast<float>(a))); }                                  \
  inline T hsin(T a) { return T(sinf(static_cast<float>(a))); }                                      \
  inline T hcos(T a) { return T(cosf(static_cast<float>(a))); }                                      \
  inline T htanh(T a) { return T(tanhf(static_cast<float>(a))); }                                   \
  inline T hceil(T a) { return T(ceilf(static_cast<float>(a))); }                                    \
  inline T hfloor(T a) { return T(floorf(static_cast<float>(a))); }                                  \
  inline T htrunc(T a) { return T(truncf(static_cast<float>(a))); }                                  \
  inline T hrint(T a) { return T(rintf(static_cast<float>(a))); }                                    \
  inline T atomicAdd(T* p, T v) { return hone_emu::atomic_update<unsigned short>(p, [v](T o) { return o + v; }); } \
  inline T atomicMax(T* p, T v) { return hone_emu::atomic_update<unsigned short>(p, [v](T o) { return __hmax(o, v); }); } \
  inline T atomicMin(T* p, T v) { return hone_emu::atomic_update<unsigned short>(p, [v](T o) { return __hmin(o, v); }); } \
  HONE_EMU_SHUFFLES(T)

// The pair type P has members x and y of the scalar type.
#define HONE_EMU_HALF_PAIR_API(T, P)                                                                 \
  inline P operator+(P a, P b) { return P(a.x + b.x, a.y + b.y); }                                   \
  inline P operator-(P a, P b) { return P(a.x - b.x, a.y - b.y); }                                   \
  inline P operator*(P a, P b) { return P(a.x * b.x, a.y * b.y); }                                   \
  inline P operator/(P a, P b) { return P(a.x / b.x, a.y / b.y); }                                   \
  inline P operator-(P a) { return P(-a.x, -a.y); }                                                  \
  inline P operator+(P a) { return a; }                                                              \
  inline P& operator+=(P& a, P b) { return a = a + b; }                                             \
  inline P& operator-=(P& a, P b) { return a = a - b; }                                             \
  inline P& operator*=(P& a, P b) { return a = a * b; }                                             \
  inline P& operator/=(P& a, P b) { return a = a / b; }                                             \
  inline bool operator==(P a, P b) { return a.x == b.x && a.y == b.y; }                              \
  inline bool operator!=(P a, P b) { return a.x != b.x && a.y != b.y; }                              \
  inline P __hadd2(P a, P b) { return a + b; }                                                       \
  inline P __hsub2(P a, P b) { return a - b; }                                                       \
  inline P __hmul2(P a, P b) { return a * b; }                                                       \
  inline P __h2div(P a, P b) { return a / b; }                                                       \
  inline P __hadd2_rn(P a, P b) { return a + b; }                                                    \
  inline P __hsub2_rn(P a, P b) { return a - b; }                                                    \
  inline P __hmul2_rn(P a, P b) { return a * b; }                                                    \
  inline P __hfma2(P a, P b, P c) { return P(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }        \
  inline P __hfma2_relu(P a, P b, P c) { return P(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)); } \
  inline P __hadd2_sat(P a, P b) { return P(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); }          \
  inline P __hmul2_sat(P a, P b) { return P(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); }          \
  inline P __hfma2_sat(P a, P b, P c) { return P(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); } \
  inline P __hneg2(P a) { return -a; }                                                               \
  inline P __habs2(P a) { return P(__habs(a.x), __habs(a.y)); }                                      \
  inline P __hmax2(P a, P b) { return P(__hmax(a.x, b.x), __hmax(a.y, b.y)); }                       \
  inline P __hmin2(P a, P b) { return P(__hmin(a.x, b.x), __hmin(a.y, b.y)); }                       \
  inline P __hmax2_nan(P a, P b) { return P(__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)); }           \
  inline P __hmin2_nan(P a, P b) { return P(__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)); }           \
  inline P __heq2(P a, P b) { return P(T(a.x == b.x ? 1.0f : 0.0f), T(a.y == b.y ? 1.0f : 0.0f)); } \
  inline P __hne2(P a, P b) { return P(T(a.x != b.x ? 1.0f : 0.0f), T(a.y != b.y ? 1.0f : 0.0f)); } \
  inline P __hlt2(P a, P b) { return P(T(a.x < b.x ? 1.0f : 0.0f), T(a.y < b.y ? 1.0f : 0.0f)); }   \
  inline P __hle2(P a, P b) { return P(T(a.x <= b.x ? 1.0f : 0.0f), T(a.y <= b.y ? 1.0f : 0.0f)); } \
  inline P __hgt2(P a, P b) { return P(T(a.x > b.x ? 1.0f : 0.0f), T(a.y > b.y ? 1.0f : 0.0f)); }   \
  inline P __hge2(P a, P b) { return P(T(a.x >= b.x ? 1.0f : 0.0f), T(a.y >= b.y ? 1.0f : 0.0f)); } \
  inline bool __hbeq2(P a, P b) { return a.x == b.x && a.y == b.y; }                                 \
  inline bool __hbne2(P a, P b) { return a.x != b.x && a.y != b.y; }                                 \
  inline bool __hblt2(P a, P b) { return a.x < b.x && a.y < b.y; }                                   \
  inline bool __hble2(P a, P b) { return a.x <= b.x && a.y <= b.y; }                                 \
  inline bool __hbgt2(P a, P b) { return a.x > b.x && a.y > b.y; }                                   \
  inline bool __hbge2(P a, P b) { return a.x >= b.x && a.y >= b.y; }                                 \
  inline P __hisnan2(P a) { return P(T(__hisnan(a.x) ? 1.0f : 0.0f), T(__hisnan(a.y) ? 1.0f : 0.0f)); } \
  inline P h2sqrt(P a) { return P(hsqrt(a.x), hsqrt(a.y)); }                                         \
  inline P h2rsqrt(P a) { return P(hrsqrt(a.x), hrsqrt(a.y)); }                                      \
  inline P h2rcp(P a) { return P(hrcp(a.x), hrcp(a.y)); }                                            \
  inline P h2exp(P a) { return P(hexp(a.x), hexp(a.y)); }                                            \
  inline P h2exp2(P a) { return P(hexp2(a.x), hexp2(a.y)); }                                         \
  inline P h2exp10(P a) { return P(hexp10(a.x), hexp10(a.y)); }                                      \
  inline P h2log(P a) { return P(hlog(a.x), hlog(a.y)); }                                            \
  inline P h2log2(P a) { return P(hlog2(a.x), hlog2(a.y)); }                                         \
  inline P h2log10(P a) { return P(hlog10(a.x), hlog10(a.y)); }                                      \
  inline P h2sin(P a) { return P(hsin(a.x), hsin(a.y)); }                                            \
  inline P h2cos(P a) { return P(hcos(a.x), hcos(a.y)); }                                            \
  inline P h2ceil(P a) { return P(hceil(a.x), hceil(a.y)); }                                         \
  inline P h2floor(P a) { return P(hfloor(a.x), hfloor(a.y)); }                                      \
  inline P h2trunc(P a) { return P(htrunc(a.x), htrunc(a.y)); }                                      \
  inline P h2rint(P a) { return P(hrint(a.x), hrint(a.y)); }                                         \
  inline float __low2float(P a) { return static_cast<float>(a.x); }                                  \
  inline float __high2float(P a) { return static_cast<float>(a.y); }                                 \
  inline P atomicAdd(P* p, P v) { return hone_emu::atomic_update<unsigned int>(p, [v](P o) { return o + v; }); } \
  HONE_EMU_SHUFFLES(P)
