// nvcuda::wmma on emu (and, compiled by NVRTC, on the GPU): one warp's tile products in every
// shape and layout emu has, and the misuses the GPU does not allow.
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

// d = 2 (a b + c), d row-major with N columns; c is read column-major (ldc apart).
template <int M, int N, int K, class LA, class LB>
__device__ void tile_product(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b, const float* c, int lda, int ldb,
                             int ldc) {
  wmma::fragment<wmma::matrix_a, M, N, K, __nv_bfloat16, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, __nv_bfloat16, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, float> acc;
  wmma::fill_fragment(fa, 0.0f);  // a float for a bf16 fragment converts, as in CUDA (then loaded over)
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(acc, c, ldc, wmma::mem_col_major);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 2.0f;  // the same to every element: any order
  wmma::store_matrix_sync(d, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void product_16x16x16_row_col(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                    const float* c, int lda, int ldb, int ldc) {
  tile_product<16, 16, 16, wmma::row_major, wmma::col_major>(d, a, b, c, lda, ldb, ldc);
}
extern "C" __global__ void product_16x16x16_col_row(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                    const float* c, int lda, int ldb, int ldc) {
  tile_product<16, 16, 16, wmma::col_major, wmma::row_major>(d, a, b, c, lda, ldb, ldc);
}
extern "C" __global__ void product_32x8x16_row_row(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                   const float* c, int lda, int ldb, int ldc) {
  tile_product<32, 8, 16, wmma::row_major, wmma::row_major>(d, a, b, c, lda, ldb, ldc);
}
extern "C" __global__ void product_8x32x16_col_col(float* d, const __nv_bfloat16* a, const __nv_bfloat16* b,
                                                   const float* c, int lda, int ldb, int ldc) {
  tile_product<8, 32, 16, wmma::col_major, wmma::col_major>(d, a, b, c, lda, ldb, ldc);
}

// Misuses, each chosen by `how`: 1 only half the warp multiplies; 2 each lane loads from its own
// pointer; 3 a pointer 2 bytes past alignment; 4 a leading dimension of 12 bf16 (24 bytes).
// 0 is the correct use.
extern "C" __global__ void misuse(float* d, const __nv_bfloat16* a, int how) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  const int lane = threadIdx.x % 32;
  const __nv_bfloat16* p = a;
  if (how == 2) p = a + (lane % 2) * 16;
  if (how == 3) p = a + 1;
  wmma::load_matrix_sync(fa, p, how == 4 ? 12 : 16);
  wmma::load_matrix_sync(fb, a, 16);
  if (how != 1 || lane < 16) wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}
