#include "cluster_rows.cuh"
#include "w4_tile.cuh"

// Split-K over a cluster of KS blocks (cluster_rows.cuh), for a few rows with a long K.
template <int KS, int BLOCK, int ROWS, int MT, int WORDS, int UNPACK, int K, int G>
__device__ __forceinline__ void gemv_w4_split_k(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                                const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int, int) {
  const int n0 = blockIdx.x / KS * ROWS;
  const int m0 = blockIdx.y * MT;
  const W4Tile<ROWS, MT, WORDS, UNPACK, K, G> tile(x, w_packed, w_scale, w_zeros, m0, n0, M, N);
  tile_rows_by_cluster<KS, BLOCK, ROWS, MT, K / (8 * WORDS)>(tile, out, m0, n0, M, N);
}
