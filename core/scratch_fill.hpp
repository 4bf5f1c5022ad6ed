#pragma once
// What a scratch (workspace) buffer holds when a kernel starts: garbage, never the zeros a fresh
// allocation often has, so that a kernel that reads scratch before writing it fails. Floats mix
// NaN (which a sum carries to the output) with finite values of every magnitude (which a max or
// a comparison does not skip, as fmaxf skips NaN); integers are random. A zeroed part, at the
// start, is zero: the kernel may count on it and must leave it zero (core/op_spec.hpp, zeroed).
#include <cstddef>
#include <cstdint>

#include "core/host_tensor.hpp"

namespace hone {

/// `n` elements of `dtype`: the first `zeroed` zero, the rest garbage drawn from `seed`.
HostTensor scratch_fill(DType dtype, std::size_t n, std::size_t zeroed, std::uint64_t seed);

}  // namespace hone
