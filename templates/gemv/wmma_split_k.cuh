#include "wmma_tiles.cuh"

// Tensor cores with K split over the block's warps, for the decode batches where gemv_wmma's
// blocks are too few to keep an H200's memory busy: a block owns 16 * NF rows of w and 16 * MF
// rows of x, and warp v takes the steps of 16 * U columns v, v + WARPS, ... of K. A warp loads
// all U * NF tiles of w of its step before its first product, so U * NF * 512 bytes are in
// flight a warp; x comes from cache (load_x_step). The partial tiles meet once at the end.
template <int WARPS, int MF, int NF, int U, int K>
__device__ __forceinline__ void gemv_wmma_split(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                                int N, int k_arg) {
  using namespace nvcuda;
  __shared__ __align__(32) __nv_bfloat16 x_slots[WARPS][16 * MF * 16];
  __shared__ __align__(32) float tiles[WARPS][256];
  const WmmaSplitWarp<MF, NF> at;
  const int warp = at.warp, m0 = at.m0, n0 = at.n0;
  const bool whole = at.whole(M);

  WmmaAcc acc[MF][NF];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = warp * 16 * U; k0 < K; k0 += WARPS * 16 * U) {
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[U][NF];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < NF; ++j)
        wmma::load_matrix_sync(b[u][j], w + static_cast<long long>(n0 + 16 * j) * K + k0 + 16 * u, static_cast<unsigned>(K));
#pragma unroll
    for (int u = 0; u < U; ++u) {
      WmmaX a[MF];
      load_x_step<MF>(a, x_slots[warp], x, m0, M, K, k0 + 16 * u, whole);
#pragma unroll
      for (int i = 0; i < MF; ++i)
#pragma unroll
        for (int j = 0; j < NF; ++j) wmma::mma_sync(acc[i][j], a[i], b[u][j], acc[i][j]);
    }
  }
  sum_warp_tiles<WARPS, MF, NF>(out, acc, tiles, m0, n0, M, N, [](int) { return 1.0f; });
}
