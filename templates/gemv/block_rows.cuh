#include "dot_tile.cuh"
#include "tile_rows.cuh"

// The whole block of BLOCK threads owns ROWS rows of w and splits K between its threads, for a
// tile of MT rows of x. More threads per row than gemv_warp_rows: for small N (routers, gates,
// expert projections) where one warp per row would leave most of the GPU idle. Warps reduce
// with shuffles, then through shared memory across warps.
template <int BLOCK, int ROWS, int MT, int VEC, int UNROLL, int K>
__device__ __forceinline__ void gemv_block_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int M, int N, int k_arg) {
  constexpr int WARPS = BLOCK / 32;
  constexpr int PACKS = K / VEC;  // K % VEC == 0
  __shared__ float partial[WARPS][MT * ROWS];
  const int n0 = blockIdx.x * ROWS;
  const int m0 = blockIdx.y * MT;
  const GemvTile<ROWS, MT, VEC, K> tile(x, w, m0, n0, M, N);

  tile_rows_by_block<BLOCK, ROWS, MT, PACKS, UNROLL>(tile, out, partial, m0, n0, M, N);
}
