#include "fp8_tile.cuh"
#include "tile_rows.cuh"

// The whole block of BLOCK threads owns ROWS rows of w and splits K between its threads, for a
// tile of MT rows of x: for small N, where one group of lanes per row would leave the GPU idle.
// Warps reduce with shuffles, then through shared memory across warps.
template <int BLOCK, int ROWS, int MT, int VEC, int DECODE, int K, int BN, int BK>
__device__ __forceinline__ void gemv_fp8_block_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                                    const float* w_scale, int M, int N, int, int, int) {
  constexpr int WARPS = BLOCK / 32;
  constexpr int PACKS = K / VEC;  // K % VEC == 0
  __shared__ float partial[WARPS][MT * ROWS];
  const int n0 = blockIdx.x * ROWS;
  const int m0 = blockIdx.y * MT;
  const Fp8Tile<ROWS, MT, VEC, DECODE, K, BN, BK> tile(x, w, w_scale, m0, n0, M, N);

  tile_rows_by_block<BLOCK, ROWS, MT, PACKS>(tile, out, partial, m0, n0, M, N);
}
