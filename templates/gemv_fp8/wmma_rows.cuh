#include "fp8_tile.cuh"
#include "wmma_tiles.cuh"

// Tensor cores for FP8 weights at M >= 8, as gemv_wmma does for bf16: a block owns 16 * MF rows
// of x and WARPS warps, each 16 * NF rows of w, and walks K in chunks of KC. Each warp widens its
// own chunk of w codes into shared memory as bf16, which holds every e4m3 value exactly, so the
// tensor cores multiply the codes themselves and the scales stay in fp32: the sums of one scale
// block (BK columns; BN % 16 == 0, so a 16-row tile has one scale) are scaled into the total when
// the block ends. With one block along K (per-channel scales, BK >= K) each output is scaled once,
// when it is stored, whatever BN is.
template <int WARPS, int MF, int NF, int KC, int K, int BN, int BK>
__device__ __forceinline__ void gemv_fp8_wmma(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                              const float* w_scale, int M, int N, int, int, int) {
  constexpr int MT = 16 * MF, NT = 16 * NF, LD = WidenedStage<WARPS, MF, NF, KC>::LD;
  constexpr bool ONE_BLOCK = BK >= K;
  constexpr int SCALE_COLS = (K + BK - 1) / BK;
  __shared__ WidenedStage<WARPS, MF, NF, KC> stage;
  const WmmaWarp<WARPS, MF, NF> at;
  const int warp = at.warp, lane = at.lane, m0 = at.m0, n0 = at.n0;
  const bool owns_rows = at.owns_rows(N);

  WmmaAcc acc[MF][NF], block_sum[MF][NF];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);
      nvcuda::wmma::fill_fragment(block_sum[i][j], 0.0f);
    }

  for (int k0 = 0; k0 < K; k0 += KC) {
    __syncthreads();  // the previous chunk is no longer read
    stage_x_chunk<MT, KC, LD, WARPS * 32>(stage.xs, x, m0, M, K, k0);
    if (owns_rows)
      for (int p = lane; p < NT * KC / 16; p += 32) {
        const int r = p / (KC / 16), c = p % (KC / 16) * 16;
        widen_to_bf16(*reinterpret_cast<const Fp8Pack<16>*>(w + static_cast<long long>(n0 + r) * K + k0 + c),
                      stage.ws[warp] + r * LD + c);
      }
    __syncthreads();
    if (!owns_rows) continue;
    mma_chunk<MF, NF, KC, LD>(block_sum, stage.xs, stage.ws[warp], LD);
    if constexpr (!ONE_BLOCK) {
      if ((k0 + KC) % BK == 0 || k0 + KC == K) {  // the scale block ends here (BK % KC == 0)
#pragma unroll
        for (int j = 0; j < NF; ++j) {
          const float s = w_scale[static_cast<long long>((n0 + 16 * j) / BN) * SCALE_COLS + k0 / BK];
#pragma unroll
          for (int i = 0; i < MF; ++i) {
#pragma unroll
            for (int t = 0; t < acc[i][j].num_elements; ++t) acc[i][j].x[t] = fmaf(s, block_sum[i][j].x[t], acc[i][j].x[t]);
            nvcuda::wmma::fill_fragment(block_sum[i][j], 0.0f);
          }
        }
      }
    }
  }
  if (!owns_rows) return;
  if constexpr (ONE_BLOCK)
    store_tiles<MF, NF>(out, block_sum, stage.tile[warp], m0, n0, M, N, [w_scale](int n) { return w_scale[n / BN]; });
  else
    store_tiles<MF, NF>(out, acc, stage.tile[warp], m0, n0, M, N, [](int) { return 1.0f; });
}
