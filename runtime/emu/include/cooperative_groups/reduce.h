#pragma once
// The emu device's <cooperative_groups/reduce.h>: cg::reduce over a tile, with CUDA's operators.
// Every lane gets the result, as on the device (a butterfly of shfl_xor).
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };

template <class Group, class T, class Op>
inline T reduce(const Group& group, T value, Op op) {
  for (unsigned int offset = group.size() / 2; offset > 0; offset /= 2) value = op(value, group.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups
