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

/// For an in-out buffer: the first element the reference left bit for bit as it went in
/// (`expected_before` to `expected`) that the candidate changed (`got_before` to `got`), or -1.
/// Tolerance does not apply there: what an op leaves alone the next kernel reads as it was (rope's
/// v heads, which attention reads next), so one bit of change is a wrong result.
std::int64_t first_change_of_kept(const HostTensor& got_before, const HostTensor& got, const HostTensor& expected_before,
                                  const HostTensor& expected);

/// "[3, 17]" for a flat index into a buffer with the given extents.
std::string format_index(std::int64_t flat, const std::vector<std::int64_t>& extents);

}  // namespace hone
