#include <cooperative_groups.h>
#include <cuda_bf16.h>
namespace cg = cooperative_groups;

// Hand-written split-K gemv kernels over a cluster of 4 blocks of 32 threads, one output (row m of
// x, row n of w) per cluster: each block sums a quarter of K, rank 0 adds the four sums from the
// blocks' shared memory. One right, one without the cluster.sync() before those reads, one
// without the cluster.sync() that keeps the peers' shared memory alive until they are done.
enum Fault { kRight, kNoSyncBeforeReads, kNoSyncAfterReads };

template <Fault F>
__device__ void split_k_row(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int N, int K) {
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ float warp_sum;
  const int n = blockIdx.x / 4, m = blockIdx.y;
  const int rank = static_cast<int>(cluster.block_rank()), quarter = K / 4;
  float acc = 0.f;
  for (int k = rank * quarter + threadIdx.x; k < (rank + 1) * quarter; k += 32)
    acc += __bfloat162float(x[m * K + k]) * __bfloat162float(w[static_cast<long long>(n) * K + k]);
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  if (threadIdx.x == 0) warp_sum = acc;
  if (F != kNoSyncBeforeReads) cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    float s = 0.f;
    for (int b = 0; b < 4; ++b) s += *cluster.map_shared_rank(&warp_sum, b);
    out[m * N + n] = __float2bfloat16(s);
  }
  if (F != kNoSyncAfterReads) cluster.sync();
}

#define SPLIT_K_KERNEL(name, fault)                                                                                    \
  extern "C" __global__ void __cluster_dims__(4, 1, 1)                                                                 \
      name(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N, int K) {                  \
    split_k_row<fault>(out, x, w, N, K);                                                                               \
  }

SPLIT_K_KERNEL(gemv_cluster_right, kRight)
SPLIT_K_KERNEL(gemv_cluster_no_sync_before_reads, kNoSyncBeforeReads)
SPLIT_K_KERNEL(gemv_cluster_no_sync_after_reads, kNoSyncAfterReads)
