#pragma once
// Comparing a candidate's output buffer with the reference's under the op's tolerance.
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "validator/checked_elements.hpp"

namespace hone {

struct Comparison {
  std::int64_t mismatches = 0;     // elements outside their bound, NaN and Inf included
  std::int64_t worst_index = -1;   // flat index of the element furthest outside (or closest to) the bound
  double worst_ratio = 0;          // |got - expected| / bound there
  double max_abs_err = 0;
  double got = 0, expected = 0;    // at worst_index
  double row_rms = 0;              // the rms of the expected row there (with a row_rtol)
};

/// The elements of `only` (every one when it is empty) under the tolerance; indices stay flat.
/// A row is `row_length` consecutive elements (0: the whole buffer); its rms, over the finite
/// expected elements checked, is what the tolerance's row_rtol scales.
Comparison compare_buffers(const HostTensor& got, const HostTensor& expected, const Tolerance& tol,
                           const CheckedElements& only = {}, std::size_t row_length = 0);

/// The elements of an in-out buffer the reference leaves alone: unchanged bit for bit from
/// `before` to `after`, and, where there is a probe (a launch on the buffer filled with
/// signalling NaN, `probe_before` to `probe_after`; empty tensors for none), unchanged there too.
/// The probe tells an element the reference never computes on (rope's v heads) from one it
/// updates whose new value happens to round back to the old (a DeltaNet state element under a
/// tiny update), which only the tolerance may judge. Elements outside `only` are not kept (they
/// are checked unchanged elsewhere).
std::vector<bool> kept_elements(const HostTensor& before, const HostTensor& after, const HostTensor& probe_before,
                                const HostTensor& probe_after, const CheckedElements& only = {});

/// For an in-out buffer: the first element the reference leaves alone (`kept`) that the
/// candidate changed (`got_before` to `got`), or -1. Tolerance does not apply there: what an op
/// leaves alone the next kernel reads as it was (rope's v heads, which attention reads next), so
/// one bit of change is a wrong result.
std::int64_t first_change_of_kept(const HostTensor& got_before, const HostTensor& got, const std::vector<bool>& kept,
                                  const CheckedElements& only = {});

/// Whether element i holds the same bits in both buffers (of one dtype).
bool same_bits(const HostTensor& a, const HostTensor& b, std::size_t i);

/// "[3, 17]" for a flat index into a buffer with the given extents.
std::string format_index(std::int64_t flat, const std::vector<std::int64_t>& extents);

}  // namespace hone
