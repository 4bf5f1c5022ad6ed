#include "w4_tile.cuh"
#include "wmma_tiles.cuh"

// Tensor cores for INT4 weights at M >= 8, tiled as gemv_fp8_wmma: a block owns 16 * MF rows of
// x and WARPS warps, each 16 * NF rows of w, and walks K in chunks of KC inside one group
// (G % KC == 0). Each warp widens its chunk into shared memory as bf16 q - z, exact, so a tile's
// sums over a group are exact products in fp32. The scale varies along n inside a 16 x 16 tile,
// which a fragment's opaque layout cannot follow, so when a group ends the warp's tiles pass
// through shared memory: each lane owns column lane % 16 and 8 rows of every tile, and adds
// scale[n, g] times its sums into totals kept in registers.
template <int WARPS, int MF, int NF, int KC, int K, int G>
__device__ __forceinline__ void gemv_w4_wmma(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                             const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int, int) {
  constexpr int MT = 16 * MF, NT = 16 * NF, LD = WidenedStage<WARPS, MF, NF, KC>::LD;
  constexpr int GROUPS = K / G;
  __shared__ WidenedStage<WARPS, MF, NF, KC> stage;
  const WmmaWarp<WARPS, MF, NF> at;
  const int warp = at.warp, lane = at.lane, m0 = at.m0, n0 = at.n0;
  const bool owns_rows = at.owns_rows(N);
  const unsigned int* zeros = reinterpret_cast<const unsigned int*>(w_zeros);

  WmmaAcc group_sum[MF][NF];
  float total[MF][NF][8] = {};
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) nvcuda::wmma::fill_fragment(group_sum[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += KC) {
    const int g = k0 / G;
    __syncthreads();  // the previous chunk is no longer read
    stage_x_chunk<MT, KC, LD, WARPS * 32>(stage.xs, x, m0, M, K, k0);
    if (owns_rows)
      for (int p = lane; p < NT * KC / 32; p += 32) {  // 4 words, 32 codes, one 16-byte load
        const int r = p / (KC / 32), c = p % (KC / 32) * 32, n = n0 + r;
        const Int4Pack<4> pack = *reinterpret_cast<const Int4Pack<4>*>(w_packed + static_cast<long long>(n) * (K / 8) + (k0 + c) / 8);
        const unsigned int z = (zeros[static_cast<long long>(n / 8) * GROUPS + g] >> (4 * (n % 8))) & 15u;
        const __nv_bfloat162 offset = __float2bfloat162_rn(128.0f + static_cast<float>(z));
#pragma unroll
        for (int word = 0; word < 4; ++word)
          *reinterpret_cast<Bf16Pack<8>*>(stage.ws[warp] + r * LD + c + 8 * word) = centred_codes(pack.v[word], offset);
      }
    __syncthreads();
    if (!owns_rows) continue;
    mma_chunk<MF, NF, KC, LD>(group_sum, stage.xs, stage.ws[warp], LD);
    if ((k0 + KC) % G != 0) continue;  // the group goes on (K % G == 0: the last chunk ends one)
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      const float s = __bfloat162float(w_scale[static_cast<long long>(n0 + 16 * j + lane % 16) * GROUPS + g]);
#pragma unroll
      for (int i = 0; i < MF; ++i) {
        nvcuda::wmma::store_matrix_sync(stage.tile[warp], group_sum[i][j], 16, nvcuda::wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int t = 0; t < 8; ++t) total[i][j][t] = fmaf(s, stage.tile[warp][lane + 32 * t], total[i][j][t]);
        __syncwarp();
        nvcuda::wmma::fill_fragment(group_sum[i][j], 0.0f);
      }
    }
  }
  if (!owns_rows) return;
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j)
#pragma unroll
      for (int t = 0; t < 8; ++t) {
        const int m = m0 + 16 * i + 2 * t + lane / 16, n = n0 + 16 * j + lane % 16;
        if (m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(total[i][j][t]);
      }
}
