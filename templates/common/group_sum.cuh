#pragma once

// The sum of v over an aligned group of LANES adjacent lanes (LANES a power of two, at most 32),
// by xor shuffles that every lane of the warp runs.
template <int LANES>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
