#include "validator/error_bias.hpp"

#include <algorithm>
#include <cmath>

namespace hone {

double rounding_unit(DType dtype) {
  switch (dtype) {
    case DType::bf16: return 0x1p-8;
    case DType::f16: return 0x1p-11;
    case DType::fp8: return 0x1p-4;
    case DType::f32: return 0x1p-24;
    case DType::f64: return 0x1p-53;
    default: return 0;
  }
}

ErrorBias error_bias(const HostTensor& got, const HostTensor& expected, const CheckedElements& only) {
  ErrorBias b;
  b.unit = rounding_unit(expected.dtype);
  if (b.unit == 0) return b;
  double offset = 0, outward = 0, magnitude = 0, squares = 0;
  for_each_checked(expected.count, only, [&](std::size_t i) {
    const double e = expected.at(i), g = got.at(i);
    if (!std::isfinite(e) || !std::isfinite(g)) return;
    offset += g - e;
    outward += e < 0 ? e - g : g - e;
    magnitude += std::fabs(e);
    squares += e * e;
  });
  if (magnitude <= 0 || squares <= 0) return b;
  b.effective_elements = magnitude * magnitude / squares;
  b.in_magnitude = std::fabs(outward) >= std::fabs(offset);
  b.relative = (b.in_magnitude ? outward : offset) / magnitude;
  b.bound = std::max(b.unit * (kBiasFraction + kBiasMargin / std::sqrt(b.effective_elements)), kBiasFloor);
  return b;
}

}  // namespace hone
