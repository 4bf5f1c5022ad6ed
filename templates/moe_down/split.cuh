#include "down_tile.cuh"

// One block per (token t, tile of output rows), its WARPS warps splitting the token's TOPK
// experts: warp w takes experts w, w + WARPS, ..., each group of LANES lanes of it the same ROWS
// rows of K, so that WARPS experts' rows stream at once (more bytes in flight than one warp
// walking all TOPK, and WARPS times the blocks of moe_down_rows at batch 1 for the same rows).
// Each warp's fp32 sums meet through shared memory, added in warp order (deterministic) and
// rounded once. Ids of another GPU's experts are skipped (the same branch for the whole warp).
template <int WARPS, int LANES, int ROWS, int VEC, int E, int TOPK, int N, int K>
__device__ __forceinline__ void moe_down_split(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2,
                                               const int* topk_ids, const float* topk_w, int tokens, int e_arg, int topk_arg,
                                               int n_arg, int k_arg) {
  constexpr int GROUPS = 32 / LANES;  // groups per warp; every warp covers the block's GROUPS * ROWS rows
  __shared__ float partial[WARPS][GROUPS * ROWS];
  const int t = blockIdx.y;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % LANES, group = threadIdx.x % 32 / LANES;
  const int k0 = (blockIdx.x * GROUPS + group) * ROWS;
  float acc[ROWS] = {};
  for (int j = warp; j < TOPK; j += WARPS) {
    const int s = t * TOPK + j;
    const int e = topk_ids[s];
    if (e < 0 || e >= E) continue;
    const DownTile<ROWS, VEC, N, K> tile(w2, e, k0, h + static_cast<long long>(s) * N);
    tile.template accumulate<LANES>(acc, topk_w[s], lane);
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const float sum = group_sum<LANES>(acc[r]);
    if (lane == 0) partial[warp][group * ROWS + r] = sum;
  }
  __syncthreads();
  const int i = threadIdx.x;  // one thread per row of the block's tile
  if (i < GROUPS * ROWS) {
    float sum = 0.f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) sum += partial[w][i];
    out[static_cast<long long>(t) * K + blockIdx.x * GROUPS * ROWS + i] = __float2bfloat16(sum);
  }
}
