#pragma once
// What the quantized-weight generators draw alike: the largest of n normal draws, sampled
// directly from its distribution instead of drawing the n values (a scale stands for a block
// of 128 x 128 weights, and a layer has thousands of blocks).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/index_generator.hpp"

namespace hone::quant_draws {

/// t with P(Z > t) = tail for a standard normal Z (0 < tail <= 0.5), by Newton's method on the
/// upper tail 0.5 * erfc(t / sqrt 2), which is convex and decreasing for t >= 0.
inline double upper_quantile(double tail) {
  double t = std::sqrt(-2.0 * std::log(tail));
  for (int i = 0; i < 50; ++i) {
    const double f = 0.5 * std::erfc(t / std::sqrt(2.0)) - tail;
    const double density = std::exp(-0.5 * t * t) / std::sqrt(2.0 * M_PI);
    const double step = f / density;
    t = std::fmax(t + step, 0.0);
    if (std::fabs(step) < 1e-12 * (1.0 + t)) break;
  }
  return t;
}

/// The largest |z| of n standard normal draws: P(max <= t) = (1 - 2 P(Z > t))^n = U.
inline double max_abs_normal(std::int64_t n, double u) {
  if (u < 1e-300) u = 1e-300;
  return upper_quantile(-0.5 * std::expm1(std::log(u) / static_cast<double>(n)));
}

/// The largest z of n standard normal draws: P(max <= t) = (1 - P(Z > t))^n = U (n >= 2 keeps
/// the tail under a half, where the quantile is positive).
inline double max_normal(std::int64_t n, double u) {
  if (u < 1e-300) u = 1e-300;
  const double tail = -std::expm1(std::log(u) / static_cast<double>(n));
  return upper_quantile(tail < 0.5 ? tail : 0.5);
}

/// n standard normal draws as floats, both values of each Box-Muller pair used (weights are
/// drawn by the hundred million).
inline void fill_normal(Rng& rng, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 2) {
    double u1 = rng.uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    const double r = std::sqrt(-2.0 * std::log(u1)), t = 2.0 * M_PI * rng.uniform();
    out[i] = static_cast<float>(r * std::cos(t));
    if (i + 1 < n) out[i + 1] = static_cast<float>(r * std::sin(t));
  }
}

/// Stores the low bytes of `bits` as element i of a 32-bit integer buffer.
inline void store_word(HostTensor& out, std::size_t i, std::uint32_t bits) { std::memcpy(out.bytes.data() + 4 * i, &bits, 4); }

}  // namespace hone::quant_draws
