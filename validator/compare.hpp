#pragma once
// Comparing a candidate's output buffer with the reference's under the op's tolerance.
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"

namespace hone {

struct Comparison {
  std::int64_t mismatches = 0;     // elements outside atol + rtol * |expected|, NaN and Inf included
  std::int64_t worst_index = -1;   // flat index of the element furthest outside (or closest to) the bound
  double worst_ratio = 0;          // |got - expected| / (atol + rtol * |expected|) there
  double max_abs_err = 0;
  double got = 0, expected = 0;    // at worst_index
};

Comparison compare_buffers(const HostTensor& got, const HostTensor& expected, const Tolerance& tol);

/// "[3, 17]" for a flat index into a buffer with the given extents.
std::string format_index(std::int64_t flat, const std::vector<std::int64_t>& extents);

}  // namespace hone
