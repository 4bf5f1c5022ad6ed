#include "cluster_rows.cuh"
#include "dot_tile.cuh"

// Split-K over a cluster of KS blocks (cluster_rows.cuh), for a few rows with a long K: routers,
// gates, qkv at a high tensor-parallel degree, where the rows alone would leave the GPU idle.
template <int KS, int BLOCK, int ROWS, int MT, int VEC, int UNROLL, int K>
__device__ __forceinline__ void gemv_split_k(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                             int N, int k_arg) {
  const int n0 = blockIdx.x / KS * ROWS;
  const int m0 = blockIdx.y * MT;
  const GemvTile<ROWS, MT, VEC, K> tile(x, w, m0, n0, M, N);
  tile_rows_by_cluster<KS, BLOCK, ROWS, MT, K / VEC, UNROLL>(tile, out, m0, n0, M, N);
}
