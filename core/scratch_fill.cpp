#include "core/scratch_fill.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <vector>

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
  // Magnitudes from 2^-10 (about 1e-3) to below the limit, log-uniform: a binary exponent drawn
  // uniformly and a random mantissa, put together as a double's bits. A scratch buffer is filled
  // at every launch (an attention workspace is millions of floats), where pow() per element was
  // a visible share of an emu task.
  constexpr int kLowest = -10;
  const int highest = std::ilogb(garbage_limit(dtype)) - 1;  // 2^(highest + 1) <= the limit
  const auto exponents = static_cast<std::uint64_t>(highest - kLowest + 1);
  std::vector<double> values(std::min<std::size_t>(n - zeroed, 4096));
  for (std::size_t at = zeroed; at < n; at += values.size()) {
    const std::size_t count = std::min(values.size(), n - at);
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t r = rng.next();
      if (!dtype_is_float(dtype)) {
        values[k] = static_cast<double>(static_cast<std::int32_t>(r >> 32));
      } else if (r & 1) {
        values[k] = std::numeric_limits<double>::quiet_NaN();
      } else {
        const std::uint64_t exponent = static_cast<std::uint64_t>(1023 + kLowest) + (r >> 2) % exponents;
        const double magnitude = std::bit_cast<double>((exponent << 52) | (rng.next() >> 12));
        values[k] = (r & 2) ? magnitude : -magnitude;
      }
    }
    store_elements(t.bytes.data(), dtype, at, values.data(), count);
  }
  return t;
}

}  // namespace hone
