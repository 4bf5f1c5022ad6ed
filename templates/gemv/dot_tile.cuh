#pragma once
#include "bf16_pack.cuh"

// The rows one tile reads: ROWS rows of w from n0 and MT rows of x from m0, clamped to the last
// valid row so that every load is in bounds and unconditional (edge tiles compute a duplicate
// row and do not store it). Offsets are 64-bit: N * K exceeds 2^31 for large vocabularies.
template <int ROWS, int MT, int VEC, int K>
struct GemvTile {
  const Bf16Pack<VEC>* w[ROWS];
  const Bf16Pack<VEC>* x[MT];

  __device__ __forceinline__ GemvTile(const __nv_bfloat16* xg, const __nv_bfloat16* wg, int m0, int n0, int M, int N) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
      w[r] = reinterpret_cast<const Bf16Pack<VEC>*>(wg + static_cast<long long>(n0 + r < N ? n0 + r : N - 1) * K);
#pragma unroll
    for (int i = 0; i < MT; ++i)
      x[i] = reinterpret_cast<const Bf16Pack<VEC>*>(xg + static_cast<long long>(m0 + i < M ? m0 + i : M - 1) * K);
  }

  // acc[i][r] += x[m0+i, pack p] . w[n0+r, pack p]. Each w pack is loaded and widened once and
  // reused for all MT rows of x: w is the stream from memory, x stays in cache.
  __device__ __forceinline__ void accumulate(float (&acc)[MT][ROWS], int p) const {
    float wf[ROWS][VEC];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const Bf16Pack<VEC> wp = w[r][p];
#pragma unroll
      for (int j = 0; j < VEC; ++j) wf[r][j] = __bfloat162float(wp.v[j]);
    }
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      const Bf16Pack<VEC> xp = x[i][p];
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        const float xv = __bfloat162float(xp.v[j]);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) acc[i][r] = fmaf(xv, wf[r][j], acc[i][r]);
      }
    }
  }
};
