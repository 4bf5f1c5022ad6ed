#pragma once
// Whether an output's errors lean to one side. Rounding to the output dtype, done right, errs
// up as often as down: over many elements the signed errors cancel. A kernel whose every output
// is half a percent too large stays inside the per-element tolerance (a bf16 rounding unit is
// 0.4%) but not inside this check: the mean signed error over an output's elements, relative to
// their mean magnitude, is bounded by a fraction of one rounding unit of the output dtype, plus a
// margin for how few elements carry the output (random rounding errors cancel less over few).
// Signed two ways: towards larger magnitudes (the error times the sign of the expected value: a
// scale off), and plainly (an offset); either may lean.
#include "core/dtype.hpp"
#include "core/host_tensor.hpp"
#include "validator/checked_elements.hpp"

namespace hone {

/// The unit roundoff of a dtype: half the distance from 1 to the next value (bf16 2^-8).
double rounding_unit(DType dtype);

/// The bound, in rounding units: this fraction of one unit, plus kBiasMargin units over the
/// square root of the effective number of elements (4 standard deviations of the mean of
/// unbiased errors of up to one unit of rounding each).
constexpr double kBiasFraction = 0.25;
constexpr double kBiasMargin = 8;
/// No output computed in fp32 arithmetic is exact to better than this, relative, whatever its
/// dtype: the library's exp and rsqrt are a few fp32 units off, one sign for a whole row or head.
constexpr double kBiasFloor = 0x1p-20;

struct ErrorBias {
  double relative = 0;            // mean signed error over mean magnitude (0: nothing to say), the larger of the two
  bool in_magnitude = true;       // of the error towards larger magnitudes (else of the plain, offset error)
  double bound = 0;               // what |relative| may reach
  double effective_elements = 0;  // (sum |e|)^2 / sum e^2: how many elements carry the output
  double unit = 0;                // the dtype's rounding unit

  bool biased() const { return relative > bound || relative < -bound; }
  /// |relative| / bound: above 1 is biased.
  double ratio() const { return bound > 0 ? (relative < 0 ? -relative : relative) / bound : 0; }
};

/// The bias of `got` against `expected` over the elements of `only` (every one when empty) where
/// both are finite; zero for integer dtypes and for an expected output that is all zeros there.
ErrorBias error_bias(const HostTensor& got, const HostTensor& expected, const CheckedElements& only = {});

}  // namespace hone
