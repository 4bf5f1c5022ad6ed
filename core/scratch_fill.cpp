#include "core/scratch_fill.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hone {

namespace {

// The largest magnitude the garbage takes: well inside the dtype's range, so that it stays finite
// once stored, yet far outside any value a kernel computes.
double garbage_limit(DType t) {
  switch (t) {
    case DType::fp8: return 400.0;
    case DType::f16: return 3.0e4;
    case DType::bf16:
    case DType::f32: return 1.0e30;
    default: return 1.0e300;
  }
}

}  // namespace

HostTensor scratch_fill(DType dtype, std::size_t n, std::size_t zeroed, std::uint64_t seed) {
  HostTensor t(dtype, n);
  Rng rng(seed ^ 0x5c7a7c4ULL);
  zeroed = std::min(zeroed, n);
  const double limit = std::log10(garbage_limit(dtype));
  for (std::size_t i = zeroed; i < n; ++i) {
    if (!dtype_is_float(dtype)) {
      const std::uint64_t r = rng.next();
      t.set(i, static_cast<double>(static_cast<std::int32_t>(r >> 32)));
      continue;
    }
    const std::uint64_t r = rng.next();
    if (r & 1) {
      t.set(i, std::numeric_limits<double>::quiet_NaN());
    } else {
      // Magnitudes from 1e-3 to the limit, either sign.
      const double magnitude = std::pow(10.0, -3.0 + (limit + 3.0) * rng.uniform());
      t.set(i, (r & 2) ? magnitude : -magnitude);
    }
  }
  return t;
}

}  // namespace hone
