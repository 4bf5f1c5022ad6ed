#include "cluster_rows.cuh"
#include "fp8_tile.cuh"

// Split-K over a cluster of KS blocks (cluster_rows.cuh), for a few rows with a long K.
template <int KS, int BLOCK, int ROWS, int MT, int VEC, int DECODE, int K, int BN, int BK>
__device__ __forceinline__ void gemv_fp8_split_k(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                                 const float* w_scale, int M, int N, int, int, int) {
  const int n0 = blockIdx.x / KS * ROWS;
  const int m0 = blockIdx.y * MT;
  const Fp8Tile<ROWS, MT, VEC, DECODE, K, BN, BK> tile(x, w, w_scale, m0, n0, M, N);
  tile_rows_by_cluster<KS, BLOCK, ROWS, MT, K / VEC>(tile, out, m0, n0, M, N);
}
