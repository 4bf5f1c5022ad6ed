#include "w4_tile.cuh"
#include "wmma_tiles.cuh"

// Tensor cores for INT4 weights with K split over the block's warps, tiled as gemv_wmma_split: a
// block owns 16 * NF rows of w and 16 * MF rows of x, warp v takes the steps of 16 * U columns
// v, v + WARPS, ..., each inside one group (G % (16 * U) == 0). Each lane keeps its share of the
// next step's words in registers while the warp widens the current step into its own slot of
// shared memory as bf16 q - z (exact) and multiplies it. The scale varies along n inside a tile,
// which a fragment's opaque layout cannot follow, so each step's sums pass through the warp's
// tile slot: lane l owns column l % 16 and 8 rows of every tile, and adds scale[n, g] times its
// sums into totals kept in registers.
template <int WARPS, int MF, int NF, int U, int K, int G>
__device__ __forceinline__ void gemv_w4_wmma_split(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                                   const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int, int) {
  using namespace nvcuda;
  constexpr int GROUPS = K / G, STEP = 16 * U, STRIDE = WARPS * STEP;
  constexpr int LD = WidenedSplitStage<WARPS, MF, NF, U>::LD;
  constexpr int PACKS = 16 * NF * U, PER_LANE = (PACKS + 31) / 32;  // packs of 16 codes (two words) a step
  __shared__ WidenedSplitStage<WARPS, MF, NF, U> stage;
  const WmmaSplitWarp<MF, NF> at;
  const int warp = at.warp, lane = at.lane, m0 = at.m0, n0 = at.n0;
  const bool whole = at.whole(M);
  const unsigned int* zeros = reinterpret_cast<const unsigned int*>(w_zeros);
  auto load_step = [&](Int4Pack<2>(&q)[PER_LANE], int k0) {
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) {
      const int p = lane + 32 * t;
      if (p < PACKS)
        q[t] = *reinterpret_cast<const Int4Pack<2>*>(w_packed + static_cast<long long>(n0 + p / U) * (K / 8) + (k0 + p % U * 16) / 8);
    }
  };

  WmmaAcc step_sum[MF][NF];
  float total[MF][NF][8] = {};
  Int4Pack<2> next[PER_LANE];
  if (warp * STEP < K) load_step(next, warp * STEP);

  for (int k0 = warp * STEP; k0 < K; k0 += STRIDE) {
    const int g = k0 / G;
    Int4Pack<2> words[PER_LANE];
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) words[t] = next[t];
    if (k0 + STRIDE < K) load_step(next, k0 + STRIDE);
    __syncwarp();  // the previous step's tiles are loaded
#pragma unroll
    for (int t = 0; t < PER_LANE; ++t) {
      const int p = lane + 32 * t, r = p / U, n = n0 + r;
      if (p >= PACKS) continue;
      const unsigned int z = (zeros[static_cast<long long>(n / 8) * GROUPS + g] >> (4 * (n % 8))) & 15u;
      const __nv_bfloat162 offset = __float2bfloat162_rn(128.0f + static_cast<float>(z));
      __nv_bfloat16* dst = stage.w_slots[warp] + r * LD + p % U * 16;
      *reinterpret_cast<Bf16Pack<8>*>(dst) = centred_codes(words[t].v[0], offset);
      *reinterpret_cast<Bf16Pack<8>*>(dst + 8) = centred_codes(words[t].v[1], offset);
    }
    __syncwarp();
    widened_step_sum<MF, NF, U, LD>(step_sum, stage.w_slots[warp], stage.x_slots[warp], x, m0, M, K, k0, whole);
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      const float s = __bfloat162float(w_scale[static_cast<long long>(n0 + 16 * j + lane % 16) * GROUPS + g]);
#pragma unroll
      for (int i = 0; i < MF; ++i) {
        wmma::store_matrix_sync(stage.tiles[warp], step_sum[i][j], 16, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int t = 0; t < 8; ++t) total[i][j][t] = fmaf(s, stage.tiles[warp][lane + 32 * t], total[i][j][t]);
        __syncwarp();
      }
    }
  }
  sum_warp_tiles_by<WARPS, MF, NF>(
      out,
      [&](float* slot, int i, int j) {
#pragma unroll
        for (int t = 0; t < 8; ++t) slot[lane + 32 * t] = total[i][j][t];
      },
      stage.tiles, m0, n0, M, N, [](int) { return 1.0f; });
}
