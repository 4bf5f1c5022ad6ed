#include "gate_up_tile.cuh"

// The next slot at or after token t whose expert is e (t moves past it), or -1 when no token left
// chose e. A token's experts are distinct, so it has at most one such slot.
template <int TOPK>
__device__ __forceinline__ int next_slot_of(const int* topk_ids, int e, int& t, int tokens) {
  while (t < tokens) {
    int slot = -1;
#pragma unroll
    for (int j = 0; j < TOPK; ++j)
      if (topk_ids[t * TOPK + j] == e) slot = t * TOPK + j;
    ++t;
    if (slot >= 0) return slot;
  }
  return -1;
}

// Expert-major: each chosen expert's rows are read once for all the tokens that chose it. The
// block of (slot s, tile of rows) works only if s is the first slot naming its expert e (an
// earlier slot's block does the work otherwise, and this one returns at once), then walks the
// tokens that chose e, MT at a time, folding each pack of the expert's rows into the MT tokens'
// sums (the weight pack is widened once for them). A group of LANES lanes owns ROWS gate rows and
// their up rows, as in moe_gate_up_slots; the grid is the same, so batch 1 spreads as well, and at
// 16-64 tokens an expert that several tokens chose is streamed once. The places of a last chunk
// with fewer than MT choosers load the first one's x and store nothing. Every branch is
// block-uniform, so no lane leaves before a shuffle.
template <int WARPS, int LANES, int ROWS, int MT, int VEC, int E, int TOPK, int N, int K>
__device__ __forceinline__ void moe_gate_up_experts(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                                    const int* topk_ids, int tokens, int e_arg, int topk_arg, int n_arg, int k_arg) {
  constexpr int GROUPS = WARPS * (32 / LANES);
  const int s = blockIdx.y;
  const int e = topk_ids[s];
  const int lane = threadIdx.x % LANES;
  const int n0 = (blockIdx.x * GROUPS + threadIdx.x / LANES) * ROWS;
  if (e < 0 || e >= E) {
    gate_up_zero_rows<LANES, ROWS, N>(h + static_cast<long long>(s) * N, lane, n0);
    return;
  }
  bool earlier = false;  // every warp looks at the earlier slots, 32 at a time
  for (int i = threadIdx.x % 32; i < s; i += 32) earlier |= topk_ids[i] == e;
  if (__any_sync(0xffffffffu, earlier)) return;

  int t = s / TOPK;  // the slot's own token is the first to choose e
  do {
    int slot[MT];
#pragma unroll
    for (int i = 0; i < MT; ++i) slot[i] = next_slot_of<TOPK>(topk_ids, e, t, tokens);
    if (slot[0] < 0) break;
    int tok[MT];
    __nv_bfloat16* dst[MT];
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      tok[i] = (slot[i] >= 0 ? slot[i] : slot[0]) / TOPK;
      dst[i] = slot[i] >= 0 ? h + static_cast<long long>(slot[i]) * N : nullptr;
    }
    const GateUpTile<ROWS, MT, VEC, N, K> tile(x, w13, e, n0, tok);
    gate_up_by_lanes<LANES, ROWS, MT, VEC, N, K>(tile, dst, lane, n0);
  } while (t < tokens);
}
