#include "w4_tile.cuh"
#include "tile_rows.cuh"

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

  tile_rows_by_lanes<LANES, ROWS, MT, PACKS>(tile, out, lane, m0, n0, M, N);
}
