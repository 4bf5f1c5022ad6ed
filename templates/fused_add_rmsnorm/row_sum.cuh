#pragma once

// The sum of v over the THREADS threads of one row: xor shuffles within aligned groups of THREADS
// lanes (THREADS <= 32), then across the row's warps through `warp_sums` (one float per warp of
// the block). Every thread of the block calls it, the same number of times.
template <int THREADS>
__device__ __forceinline__ float row_sum(float v, float* warp_sums) {
  constexpr int GROUP = THREADS < 32 ? THREADS : 32;
#pragma unroll
  for (int offset = GROUP / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if constexpr (THREADS > 32) {
    constexpr int WARPS = THREADS / 32;
    const int warp = threadIdx.x / 32, first = warp / WARPS * WARPS;
    if (threadIdx.x % 32 == 0) warp_sums[warp] = v;
    __syncthreads();
    v = 0.f;
#pragma unroll
    for (int i = 0; i < WARPS; ++i) v += warp_sums[first + i];
    __syncthreads();  // warp_sums may be reused by the next call
  }
  return v;
}
