// gemv on tensor cores, written by hand: one warp per 16 x 16 tile of out, x's rows staged in
// shared memory (zeros past M), w's rows read straight from global memory as the column-major
// K x 16 operand. The right kernel, one that takes w for a row-major operand (w^T: the product
// of the wrong matrix), and one that stores the whole tile whatever M is.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

template <bool W_ROW_MAJOR, bool GUARD_M>
__device__ void gemv_tile(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N, int K) {
  __shared__ __align__(32) __nv_bfloat16 xs[16 * 16];
  __shared__ __align__(32) float result[16 * 16];
  const int n0 = blockIdx.x * 16, m0 = blockIdx.y * 16, lane = threadIdx.x;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int e = lane; e < 256; e += 32) {
      const int r = e / 16, c = e % 16;
      xs[e] = m0 + r < M ? x[static_cast<long long>(m0 + r) * K + k0 + c] : __float2bfloat16(0.0f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::load_matrix_sync(a, xs, 16);
    if constexpr (W_ROW_MAJOR) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
      wmma::load_matrix_sync(b, w + static_cast<long long>(n0) * K + k0, K);
      wmma::mma_sync(acc, a, b, acc);
    } else {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
      wmma::load_matrix_sync(b, w + static_cast<long long>(n0) * K + k0, K);
      wmma::mma_sync(acc, a, b, acc);
    }
    __syncwarp();
  }
  wmma::store_matrix_sync(result, acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int e = lane; e < 256; e += 32) {
    const int m = m0 + e / 16, n = n0 + e % 16;
    if (!GUARD_M || m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(result[e]);
  }
}

extern "C" __global__ void wmma_right(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N,
                                      int K) {
  gemv_tile<false, true>(out, x, w, M, N, K);
}
extern "C" __global__ void wmma_w_row_major(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                            int N, int K) {
  gemv_tile<true, true>(out, x, w, M, N, K);
}
extern "C" __global__ void wmma_unguarded_store(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                                int N, int K) {
  gemv_tile<false, false>(out, x, w, M, N, K);
}
