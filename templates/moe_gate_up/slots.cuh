#include "gate_up_tile.cuh"

// One block per (slot s = t * TOPK + j, tile of rows): a group of LANES lanes owns ROWS gate rows
// of expert topk_ids[s] and their ROWS up rows (silu(g) * u needs both), for token t; 32 / LANES
// groups per warp, WARPS warps per block. At batch 1 the TOPK experts' rows are spread over
// N / (rows per block) * TOPK blocks (the grid is exact). A slot whose expert is another GPU's
// writes zeros and reads nothing; the whole block takes that branch, so no lane leaves before a
// shuffle.
template <int WARPS, int LANES, int ROWS, int VEC, int E, int TOPK, int N, int K>
__device__ __forceinline__ void moe_gate_up_slots(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                                  const int* topk_ids, int tokens, int e_arg, int topk_arg, int n_arg, int k_arg) {
  constexpr int GROUPS = WARPS * (32 / LANES);
  const int s = blockIdx.y;
  const int e = topk_ids[s];
  const int lane = threadIdx.x % LANES;
  const int n0 = (blockIdx.x * GROUPS + threadIdx.x / LANES) * ROWS;
  __nv_bfloat16* const dst[1] = {h + static_cast<long long>(s) * N};
  if (e < 0 || e >= E) {
    gate_up_zero_rows<LANES, ROWS, N>(dst[0], lane, n0);
    return;
  }
  const int tok[1] = {s / TOPK};
  const GateUpTile<ROWS, 1, VEC, N, K> tile(x, w13, e, n0, tok);
  gate_up_by_lanes<LANES, ROWS, 1, VEC, N, K>(tile, dst, lane, n0);
}
