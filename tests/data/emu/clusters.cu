#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each block of a cluster of 4 sums its 64 values; rank 0 adds the blocks' sums, read from their
// shared memory, in rank order. `skip` leaves out a step a right kernel needs: 1 the cluster.sync()
// before the reads (rank 0 may read a peer before it has written), 2 the one after them (a peer
// may exit, and its shared memory go, while rank 0 still reads it), 3 a cluster.sync() rank 1
// never comes to.
template <bool Dynamic>
__device__ void cluster_sum(float* out, unsigned* info, const float* in, int skip) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float static_total[1];
  extern __shared__ float dynamic_total[];
  float* total = Dynamic ? dynamic_total : static_total;
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < 64; ++i) s += in[blockIdx.x * 64 + i];
    total[0] = s;
  }
  if (skip == 3 && rank == 1) return;
  if (skip != 1) cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    float s = 0.f;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) s += *cluster.map_shared_rank(total, r);
    out[blockIdx.x / cluster.num_blocks()] = s;
  }
  if (threadIdx.x == 0) info[blockIdx.x] = rank * 100 + cluster.num_blocks() * 10 + cluster.dim_blocks().x;
  if (skip != 2) cluster.sync();
}

extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_sum_static(float* out, unsigned* info, const float* in, int skip) {
  cluster_sum<false>(out, info, in, skip);
}

extern "C" __global__ void __launch_bounds__(32) __cluster_dims__(4) cluster_sum_dynamic(float* out, unsigned* info,
                                                                                         const float* in, int skip) {
  cluster_sum<true>(out, info, in, skip);
}

// The same code without __cluster_dims__: a cluster of one block, cluster.sync() a block barrier.
extern "C" __global__ void no_cluster_sum(float* out, unsigned* info, const float* in, int skip) {
  cluster_sum<false>(out, info, in, skip);
}

// map_shared_rank of an address that is not shared memory.
extern "C" __global__ void __cluster_dims__(2, 1, 1) map_global(float* out, unsigned* info, const float* in, int skip) {
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  out[0] = *cluster.map_shared_rank(out, 1);
  cluster.sync();
}
