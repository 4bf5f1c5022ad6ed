#pragma once
#include "bf16_pack.cuh"
#include "group_sum.cuh"

// ROWS rows of expert e's w2 from k0 (all below K: the grid is exact), one pointer and constant
// offsets apart, and the slot's row of h. 64-bit offsets: E * K * N passes 2^31.
template <int ROWS, int VEC, int N, int K>
struct DownTile {
  static constexpr int PACKS = N / VEC;  // packs per row; N % VEC == 0
  const Bf16Pack<VEC>* w;                // row k0 of expert e
  const Bf16Pack<VEC>* h;

  __device__ __forceinline__ DownTile(const __nv_bfloat16* w2, int e, int k0, const __nv_bfloat16* h_row)
      : w(reinterpret_cast<const Bf16Pack<VEC>*>(w2 + (static_cast<long long>(e) * K + k0) * N)),
        h(reinterpret_cast<const Bf16Pack<VEC>*>(h_row)) {}

  // acc[r] += weight * (row r . h), over the packs l, l + LANES, ... of a group of LANES lanes:
  // the lane's partial dot products of this expert, scaled by its routing weight in fp32 (the
  // group's sum of them is the expert's term; nothing is rounded to bf16 before the end).
  template <int LANES>
  __device__ __forceinline__ void accumulate(float (&acc)[ROWS], float weight, int lane) const {
    // Unrolled so that about 4 to 8 packs (ROWS of w2 and one of h a step) are in flight per lane:
    // unrolled fully, ptxas held small blocks to 40 registers and spilled.
    constexpr int UNROLL = ROWS >= 4 ? 1 : 4 / ROWS;
    float dot[ROWS] = {};
#pragma unroll UNROLL
    for (int p = lane; p < PACKS; p += LANES) {
      Bf16Pack<VEC> wp[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) wp[r] = w[r * PACKS + p];
      const Bf16Pack<VEC> hp = h[p];
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        const float hv = __bfloat162float(hp.v[j]);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) dot[r] = fmaf(hv, __bfloat162float(wp[r].v[j]), dot[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) acc[r] = fmaf(weight, dot[r], acc[r]);
  }
};
