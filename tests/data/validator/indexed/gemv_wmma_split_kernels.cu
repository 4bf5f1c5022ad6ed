// gemv on tensor cores with K split over a block's 4 warps, written by hand: one block per 16 x
// 16 tile of out, warp v multiplies the steps of 16 columns v, v + 4, ... (x's rows staged in its
// own slot, zeros past M), and the four partial tiles meet in shared memory. The right kernel,
// one that adds the partial tiles before every warp has stored its own, and one whose second
// round of tiles (the next 16 rows of w) overwrites the slots while others still read them.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

template <bool MEET, bool SECOND_BARRIER>
__device__ void split_tiles(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N, int K) {
  __shared__ __align__(32) __nv_bfloat16 xs[4][16 * 16];
  __shared__ __align__(32) float partial[4][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, m0 = blockIdx.y * 16;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
  for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[j], 0.0f);
  for (int k0 = 16 * warp; k0 < K; k0 += 64) {
    for (int e = lane; e < 256; e += 32) {
      const int r = e / 16, c = e % 16;
      xs[warp][e] = m0 + r < M ? x[static_cast<long long>(m0 + r) * K + k0 + c] : __float2bfloat16(0.0f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::load_matrix_sync(a, xs[warp], 16);
    for (int j = 0; j < 2; ++j) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
      wmma::load_matrix_sync(b, w + static_cast<long long>(blockIdx.x * 32 + 16 * j) * K + k0, K);
      wmma::mma_sync(acc[j], a, b, acc[j]);
    }
    __syncwarp();
  }
  for (int j = 0; j < 2; ++j) {
    if (SECOND_BARRIER || j == 0) __syncthreads();
    wmma::store_matrix_sync(partial[warp], acc[j], 16, wmma::mem_row_major);
    if (MEET) __syncthreads();
    for (int e = threadIdx.x; e < 256; e += 128) {
      const float sum = partial[0][e] + partial[1][e] + partial[2][e] + partial[3][e];
      const int m = m0 + e / 16, n = blockIdx.x * 32 + 16 * j + e % 16;
      if (m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(sum);
    }
  }
}

extern "C" __global__ void wmma_split_right(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                            int N, int K) {
  split_tiles<true, true>(out, x, w, M, N, K);
}
extern "C" __global__ void wmma_split_no_meeting(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                 int M, int N, int K) {
  split_tiles<false, true>(out, x, w, M, N, K);
}
extern "C" __global__ void wmma_split_slots_reused(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int M, int N, int K) {
  split_tiles<true, false>(out, x, w, M, N, K);
}
