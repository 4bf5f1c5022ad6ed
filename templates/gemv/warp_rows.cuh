#include "dot_tile.cuh"
#include "tile_rows.cuh"

// A group of LANES lanes owns ROWS consecutive rows of w and walks K together in packs of VEC
// (lane l reads packs l, l + LANES, ...: each step of the group is one contiguous segment), for a
// tile of MT rows of x. 32 / LANES groups per warp, WARPS warps per block, no shared memory.
// The group's partial sums meet with xor shuffles; every lane of the warp runs them.
template <int WARPS, int LANES, int ROWS, int MT, int VEC, int UNROLL, int K>
__device__ __forceinline__ void gemv_warp_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                               int M, int N, int k_arg) {
  constexpr int GROUPS = WARPS * (32 / LANES);
  constexpr int PACKS = K / VEC;  // K % VEC == 0
  const int lane = threadIdx.x % LANES;
  const int n0 = (blockIdx.x * GROUPS + threadIdx.x / LANES) * ROWS;
  const int m0 = blockIdx.y * MT;
  const GemvTile<ROWS, MT, VEC, K> tile(x, w, m0, n0, M, N);

  tile_rows_by_lanes<LANES, ROWS, MT, PACKS, UNROLL>(tile, out, lane, m0, n0, M, N);
}
