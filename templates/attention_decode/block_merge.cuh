#pragma once
#include "online_softmax.cuh"

// Each warp's merged state, in shared memory, for the block to combine in warp order (the same
// order every launch: the result is deterministic).
template <int WARPS, int G, int D>
struct WarpStates {
  float m[WARPS][G], l[WARPS][G], acc[WARPS][G][D];
};

// Lanes 0..L-1 of every warp put the warp's state (after merge_warp) in `sm`; ends with a barrier.
template <int WARPS, int G, int D, int VEC>
__device__ __forceinline__ void store_warp_state(WarpStates<WARPS, G, D>& sm, const SoftmaxState<G, VEC>& st) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  if (lane < D / VEC) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) sm.acc[w][g][lane * VEC + j] = st.acc[g][j];
      if (lane == 0) {
        sm.m[w][g] = st.m[g];
        sm.l[w][g] = st.l[g];
      }
    }
  }
  __syncthreads();
}

// The block's state of head g, dim d: the warps' states combined in warp order.
template <int WARPS, int G, int D>
__device__ __forceinline__ void block_state(const WarpStates<WARPS, G, D>& sm, int g, int d, float& m, float& l, float& a) {
  m = minus_infinity();
  l = 0.f;
  a = 0.f;
  for (int w = 0; w < WARPS; ++w) softmax_merge<1>(m, l, &a, sm.m[w][g], sm.l[w][g], &sm.acc[w][g][d]);
}
