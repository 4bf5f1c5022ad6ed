#include "w4_tile.cuh"

// A group of LANES lanes owns ROWS consecutive rows of w and walks K together in packs of WORDS
// words, 8 codes each (lane l reads packs l, l + LANES, ...: each step of the group is one
// contiguous segment), for a tile of MT rows of x. 32 / LANES groups per warp, WARPS warps per block, no
// shared memory; the group's partial sums meet with xor shuffles that every lane of the warp runs.
template <int WARPS, int LANES, int ROWS, int MT, int WORDS, int UNPACK, int K, int G>
__device__ __forceinline__ void gemv_w4_warp_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                                   const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int, int) {
  constexpr int GROUPS = WARPS * (32 / LANES);
  constexpr int PACKS = K / (8 * WORDS);  // K % (8 * WORDS) == 0
  const int lane = threadIdx.x % LANES;
  const int n0 = (blockIdx.x * GROUPS + threadIdx.x / LANES) * ROWS;
  const int m0 = blockIdx.y * MT;
  const W4Tile<ROWS, MT, WORDS, UNPACK, K, G> tile(x, w_packed, w_scale, w_zeros, m0, n0, M, N);

  float acc[MT][ROWS] = {};
  // A constant trip count: unrolling by 4 keeps 4 * ROWS loads of w in flight per lane.
#pragma unroll 4
  for (int p = lane; p < PACKS; p += LANES) tile.accumulate(acc, p);

#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int offset = LANES / 2; offset > 0; offset >>= 1) acc[i][r] += __shfl_xor_sync(0xffffffffu, acc[i][r], offset);
      if (lane == (i * ROWS + r) % LANES && m0 + i < M && n0 + r < N)
        out[static_cast<long long>(m0 + i) * N + n0 + r] = __float2bfloat16(acc[i][r]);
    }
}
