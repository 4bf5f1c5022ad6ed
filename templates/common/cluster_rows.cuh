#pragma once
// Split-K over a thread-block cluster (sm_90) for the linear families: the KS blocks of a cluster
// own the same tile (ROWS rows of w, MT rows of x); block rank r walks packs r * BLOCK + t, then
// KS * BLOCK further on, and sums its share in block_sum_rows. After cluster.sync() output o is
// added up by rank o % KS from every block's `total`, read over distributed shared memory in rank
// order, so the result does not depend on which block finishes first; the last cluster.sync()
// keeps every block's shared memory alive until those reads are done. The partial sums never
// leave the cluster: no scratch buffer, the family's signature stays as it is.
#include <cooperative_groups.h>

#include "tile_rows.cuh"

template <int KS, int BLOCK, int ROWS, int MT, int PACKS, int UNROLL = 4, class Tile>
__device__ __forceinline__ void tile_rows_by_cluster(const Tile& tile, __nv_bfloat16* out, int m0, int n0, int M, int N) {
  __shared__ float partial[BLOCK / 32][MT * ROWS];
  __shared__ float total[MT * ROWS];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());

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
