#include <mma.h>

#include "bf16_pack.cuh"

// Tensor cores for a batch of decode rows (M >= 8): a block owns 16 * MF rows of x and WARPS
// warps, each 16 * NF rows of w, and walks K in chunks of KC. The block stages a chunk of x in
// shared memory (rows past M as zeros, so a partial batch needs no special tile); each warp loads
// its w tiles straight from global memory (w is [N, K]: a column-major K x N operand with leading
// dimension K) and multiplies with wmma, bf16 in, fp32 accumulate. Every w tile is read once per
// block: MF decides how many rows of x share it.
template <int WARPS, int MF, int NF, int KC, int K>
__device__ __forceinline__ void gemv_wmma(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                          int N, int k_arg) {
  using namespace nvcuda;
  constexpr int MT = 16 * MF, LD = KC + 16;  // +16 keeps rows 32-byte aligned and staggers the banks
  constexpr int PACKS = MT * KC / 8;
  __shared__ __align__(32) __nv_bfloat16 xs[MT * LD];
  __shared__ __align__(32) float tile[WARPS][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * MT;
  const int n0 = (blockIdx.x * WARPS + warp) * 16 * NF;
  const bool owns_rows = n0 < N;  // the same for the whole warp

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[MF][NF];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += KC) {
    __syncthreads();  // the previous chunk is no longer read
    for (int p = threadIdx.x; p < PACKS; p += WARPS * 32) {
      const int r = p / (KC / 8), c = p % (KC / 8) * 8;
      Bf16Pack<8> v = {};
      if (m0 + r < M) v = *reinterpret_cast<const Bf16Pack<8>*>(x + static_cast<long long>(m0 + r) * K + k0 + c);
      *reinterpret_cast<Bf16Pack<8>*>(xs + r * LD + c) = v;
    }
    __syncthreads();
    if (!owns_rows) continue;
#pragma unroll 2
    for (int kk = 0; kk < KC; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[MF];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[NF];
#pragma unroll
      for (int j = 0; j < NF; ++j)
        wmma::load_matrix_sync(b[j], w + static_cast<long long>(n0 + 16 * j) * K + k0 + kk, K);
#pragma unroll
      for (int i = 0; i < MF; ++i) wmma::load_matrix_sync(a[i], xs + 16 * i * LD + kk, LD);
#pragma unroll
      for (int i = 0; i < MF; ++i)
#pragma unroll
        for (int j = 0; j < NF; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
  }
  if (!owns_rows) return;

  // Each 16 x 16 result goes through the warp's slot of shared memory, to be rounded to bf16 and
  // stored only where it is inside [M, N].
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      wmma::store_matrix_sync(tile[warp], acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int m = m0 + 16 * i + e / 16, n = n0 + 16 * j + e % 16;
        if (m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(tile[warp][e]);
      }
      __syncwarp();
    }
}
