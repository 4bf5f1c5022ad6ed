#include "down_tile.cuh"

// One block per (token t, tile of output rows): a group of LANES lanes owns ROWS rows of K and
// walks the token's TOPK experts in order, folding each expert's ROWS dot products with h[t,j,:],
// times topk_w[t,j], into one fp32 accumulator per row; the group meets once with xor shuffles
// after the last expert and the sum is rounded once. 32 / LANES groups per warp, WARPS warps per
// block. Ids of another GPU's experts are skipped (the same branch for the whole block).
template <int WARPS, int LANES, int ROWS, int VEC, int E, int TOPK, int N, int K>
__device__ __forceinline__ void moe_down_rows(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2,
                                              const int* topk_ids, const float* topk_w, int tokens, int e_arg, int topk_arg,
                                              int n_arg, int k_arg) {
  constexpr int GROUPS = WARPS * (32 / LANES);
  const int t = blockIdx.y;
  const int lane = threadIdx.x % LANES;
  const int k0 = (blockIdx.x * GROUPS + threadIdx.x / LANES) * ROWS;
  float acc[ROWS] = {};
#pragma unroll 2
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j;
    const int e = topk_ids[s];
    if (e < 0 || e >= E) continue;
    const DownTile<ROWS, VEC, N, K> tile(w2, e, k0, h + static_cast<long long>(s) * N);
    tile.template accumulate<LANES>(acc, topk_w[s], lane);
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const float sum = group_sum<LANES>(acc[r]);
    if (lane == r % LANES) out[static_cast<long long>(t) * K + k0 + r] = __float2bfloat16(sum);
  }
}
