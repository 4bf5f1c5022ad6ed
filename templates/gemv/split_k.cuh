#include <cooperative_groups.h>

#include "dot_tile.cuh"
#include "tile_rows.cuh"

// Split-K over a thread-block cluster (sm_90): the KS blocks of a cluster own the same ROWS rows of
// w and MT rows of x, and block rank r walks packs r * BLOCK + t, then KS * BLOCK further on, so
// a few rows with a long K (routers, gates, o_proj at small N per GPU) still fill the GPU. Each
// block sums its share in block_sum_rows; after cluster.sync() output o is added up by rank
// o % KS from every block's `total`, read over distributed shared memory in rank order, so the
// result does not depend on which block finishes first. The last cluster.sync() keeps every
// block's shared memory alive until the reads are done. No scratch buffer: the contract stays
// gemv's.
template <int KS, int BLOCK, int ROWS, int MT, int VEC, int UNROLL, int K>
__device__ __forceinline__ void gemv_split_k(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                             int N, int k_arg) {
  constexpr int PACKS = K / VEC;  // K % VEC == 0
  __shared__ float partial[BLOCK / 32][MT * ROWS];
  __shared__ float total[MT * ROWS];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int n0 = blockIdx.x / KS * ROWS;
  const int m0 = blockIdx.y * MT;
  const GemvTile<ROWS, MT, VEC, K> tile(x, w, m0, n0, M, N);

  float acc[MT][ROWS] = {};
#pragma unroll UNROLL
  for (int p = rank * BLOCK + threadIdx.x; p < PACKS; p += KS * BLOCK) tile.accumulate(acc, p);
  const float sum = block_sum_rows<BLOCK, ROWS, MT>(acc, partial);
  if (threadIdx.x < MT * ROWS) total[threadIdx.x] = sum;
  cluster.sync();

  const int o = threadIdx.x * KS + rank;
  const int i = o / ROWS, r = o % ROWS;
  if (o < MT * ROWS && m0 + i < M && n0 + r < N) {
    float s = 0.f;
#pragma unroll
    for (int b = 0; b < KS; ++b) s += cluster.map_shared_rank(total, b)[o];
    out[static_cast<long long>(m0 + i) * N + n0 + r] = __float2bfloat16(s);
  }
  cluster.sync();
}
