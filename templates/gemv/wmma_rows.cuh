#include "wmma_tiles.cuh"

// Tensor cores for a batch of decode rows (M >= 8): a block owns 16 * MF rows of x and WARPS
// warps, each 16 * NF rows of w, and walks K in chunks of KC. The block stages a chunk of x in
// shared memory; each warp loads its w tiles straight from global memory and multiplies with
// wmma, bf16 in, fp32 accumulate. Every w tile is read once per block: MF decides how many rows
// of x share it.
template <int WARPS, int MF, int NF, int KC, int K>
__device__ __forceinline__ void gemv_wmma(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                          int N, int k_arg) {
  constexpr int MT = 16 * MF, LD = KC + 16;  // +16 keeps rows 32-byte aligned and staggers the banks
  __shared__ __align__(32) __nv_bfloat16 xs[MT * LD];
  __shared__ __align__(32) float tile[WARPS][16 * 16];
  const WmmaWarp<WARPS, MF, NF> at;
  const int warp = at.warp, m0 = at.m0, n0 = at.n0;
  const bool owns_rows = at.owns_rows(N);

  WmmaAcc acc[MF][NF];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += KC) {
    __syncthreads();  // the previous chunk is no longer read
    stage_x_chunk<MT, KC, LD, WARPS * 32>(xs, x, m0, M, K, k0);
    __syncthreads();
    if (owns_rows) mma_chunk<MF, NF, KC, LD>(acc, xs, w + static_cast<long long>(n0) * K + k0, K);
  }
  if (owns_rows) store_tiles<MF, NF>(out, acc, tile[warp], m0, n0, M, N, [](int) { return 1.0f; });
}
