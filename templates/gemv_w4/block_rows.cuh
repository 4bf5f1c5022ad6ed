#include "w4_tile.cuh"
#include "tile_rows.cuh"

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

  tile_rows_by_block<BLOCK, ROWS, MT, PACKS>(tile, out, partial, m0, n0, M, N);
}
