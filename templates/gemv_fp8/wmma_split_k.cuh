#include "fp8_tile.cuh"
#include "wmma_tiles.cuh"

// Tensor cores for FP8 weights with K split over the block's warps, tiled as gemv_wmma_split: a
// block owns 16 * NF rows of w and 16 * MF rows of x, warp v takes the steps of 16 * U columns
// v, v + WARPS, ... Each lane keeps its share of the next step's codes in registers while the
// warp widens the current step into its own slot of shared memory as bf16 (exact for e4m3) and
// multiplies it: two steps of w in flight a warp. A step lies inside one scale block (BN % 16 ==
// 0, BK % (16 * U) == 0), so its sums are scaled into the total when it ends; with one block
// along K (per-channel scales) each output is scaled once, when it is stored, whatever BN is.
template <int WARPS, int MF, int NF, int U, int K, int BN, int BK>
__device__ __forceinline__ void gemv_fp8_wmma_split(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                                    const float* w_scale, int M, int N, int, int, int) {
  using namespace nvcuda;
  constexpr bool ONE_BLOCK = BK >= K;
  constexpr int SCALE_COLS = (K + BK - 1) / BK, STEP = 16 * U, STRIDE = WARPS * STEP;
  constexpr int LD = WidenedSplitStage<WARPS, MF, NF, U>::LD;
  constexpr int PACKS = 16 * NF * U, PER_LANE = (PACKS + 31) / 32;  // packs of 16 codes a step
  __shared__ WidenedSplitStage<WARPS, MF, NF, U> stage;
  const WmmaSplitWarp<MF, NF> at;
  const int warp = at.warp, lane = at.lane, m0 = at.m0, n0 = at.n0;
  const bool whole = at.whole(M);
  auto load_step = [&](Fp8Pack<16>(&q)[PER_LANE], int k0) {
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) {
      const int p = lane + 32 * t;
      if (p < PACKS) q[t] = *reinterpret_cast<const Fp8Pack<16>*>(w + static_cast<long long>(n0 + p / U) * K + k0 + p % U * 16);
    }
  };

  WmmaAcc acc[MF][NF], step_sum[MF][NF];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  Fp8Pack<16> next[PER_LANE];
  if (warp * STEP < K) load_step(next, warp * STEP);

  for (int k0 = warp * STEP; k0 < K; k0 += STRIDE) {
    Fp8Pack<16> codes[PER_LANE];
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) codes[t] = next[t];
    if (k0 + STRIDE < K) load_step(next, k0 + STRIDE);
    __syncwarp();  // the previous step's tiles are loaded
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) {
      const int p = lane + 32 * t;
      if (p < PACKS) widen_to_bf16(codes[t], stage.w_slots[warp] + p / U * LD + p % U * 16);
    }
    __syncwarp();
    widened_step_sum<MF, NF, U, LD>(step_sum, stage.w_slots[warp], stage.x_slots[warp], x, m0, M, K, k0, whole);
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      const float s = ONE_BLOCK ? 1.0f : w_scale[static_cast<long long>((n0 + 16 * j) / BN) * SCALE_COLS + k0 / BK];
#pragma unroll
      for (int i = 0; i < MF; ++i)
#pragma unroll
        for (int t = 0; t < acc[i][j].num_elements; ++t) acc[i][j].x[t] = fmaf(s, step_sum[i][j].x[t], acc[i][j].x[t]);
    }
  }
  if constexpr (ONE_BLOCK)
    sum_warp_tiles<WARPS, MF, NF>(out, acc, stage.tiles, m0, n0, M, N, [w_scale](int n) { return w_scale[n / BN]; });
  else
    sum_warp_tiles<WARPS, MF, NF>(out, acc, stage.tiles, m0, n0, M, N, [](int) { return 1.0f; });
}
