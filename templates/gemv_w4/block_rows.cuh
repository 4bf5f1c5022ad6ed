#include "w4_tile.cuh"

// The whole block of BLOCK threads owns ROWS rows of w and splits K between its threads, for a
// tile of MT rows of x: for small N, where one group of lanes per row would leave the GPU idle.
// Warps reduce with shuffles, then through shared memory across warps.
template <int BLOCK, int ROWS, int MT, int WORDS, int UNPACK, int K, int G>
__device__ __forceinline__ void gemv_w4_block_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                                    const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int, int) {
  constexpr int WARPS = BLOCK / 32;
  constexpr int PACKS = K / (8 * WORDS);  // K % (8 * WORDS) == 0
  __shared__ float partial[WARPS][MT * ROWS];
  const int n0 = blockIdx.x * ROWS;
  const int m0 = blockIdx.y * MT;
  const W4Tile<ROWS, MT, WORDS, UNPACK, K, G> tile(x, w_packed, w_scale, w_zeros, m0, n0, M, N);

  float acc[MT][ROWS] = {};
#pragma unroll 4
  for (int p = threadIdx.x; p < PACKS; p += BLOCK) tile.accumulate(acc, p);

#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) acc[i][r] += __shfl_xor_sync(0xffffffffu, acc[i][r], offset);
      if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32][i * ROWS + r] = acc[i][r];
    }
  __syncthreads();
  if (threadIdx.x < MT * ROWS) {
    const int i = threadIdx.x / ROWS, r = threadIdx.x % ROWS;
    float sum = 0.f;
#pragma unroll
    for (int wi = 0; wi < WARPS; ++wi) sum += partial[wi][threadIdx.x];
    if (m0 + i < M && n0 + r < N) out[static_cast<long long>(m0 + i) * N + n0 + r] = __float2bfloat16(sum);
  }
}
