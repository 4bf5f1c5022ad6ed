#pragma once
// Rounding "to odd" (Boldo & Melquiond): an inexact result is replaced by whichever of its two
// neighbours has an odd last bit. A value rounded to odd at p bits and then to nearest at q <= p-2
// bits is the value rounded to nearest at q bits once. The 16-bit types get their single
// rounding this way from a computation in double or float (__hfma, __double2half, ...).
#include <math.h>

#include "hone_emu/intrinsics.h"

namespace hone_emu {

/// a*b + c of floats that are 16-bit values (their product is exact in double), rounded to odd
/// in double.
inline double fma_to_odd(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);  // exact: at most 2x11 bits
  const double cc = static_cast<double>(c);
  const double s = p + cc;
  if (!isfinite(s)) return s;
  const double bb = s - p;  // TwoSum: err is exactly (p + cc) - s
  const double err = (p - (s - bb)) + (cc - bb);
  if (err == 0.0 || (bit_cast<unsigned long long>(s) & 1u)) return s;
  return nextafter(s, err > 0.0 ? INFINITY : -INFINITY);
}

/// x rounded to odd in float. Beyond float's range the result is infinite: every 16-bit type
/// rounds such values to infinity too.
inline float float_to_odd(double x) {
  const float f = static_cast<float>(x);
  if (static_cast<double>(f) == x || !isfinite(f) || (bit_cast<unsigned int>(f) & 1u)) return f;
  return nextafterf(f, static_cast<double>(f) < x ? INFINITY : -INFINITY);
}

}  // namespace hone_emu
