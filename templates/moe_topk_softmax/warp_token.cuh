#include "bf16_pack.cuh"
#include "topk_keys.cuh"

// A group of LANES lanes per token, 32 / LANES groups a warp, WARPS warps a block. Lane l loads
// packs l, l + LANES, ... of VEC logits (16 bytes at VEC 8), all before any is used, and keeps
// them as keys in registers (ceil(E / (LANES * VEC)) * VEC <= 32); TOPK rounds of a group max
// (xor shuffles, or one __reduce_max_sync with REDUX) choose the experts: no shared memory, no
// barrier. A group past the last token reads the last row and stores nothing, so every lane of a
// warp runs the shuffles.
template <int WARPS, int LANES, int VEC, int REDUX, int E, int TOPK, int RENORM>
__device__ __forceinline__ void moe_topk_softmax_warp_token(float* topk_w, int* topk_ids, const __nv_bfloat16* logits,
                                                            int tokens, int e_arg, int topk_arg, int renormalize) {
  using Pack = Bf16Pack<VEC>;
  constexpr int ITEMS = (E + LANES * VEC - 1) / (LANES * VEC);
  const int lane = threadIdx.x % LANES;
  const int g = blockIdx.x * (WARPS * 32 / LANES) + threadIdx.x / LANES;
  const int t = min(g, tokens - 1);
  const Pack* row = reinterpret_cast<const Pack*>(logits + static_cast<long long>(t) * E);

  Pack packs[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if ((i * LANES + lane) * VEC < E) packs[i] = row[i * LANES + lane];
  unsigned keys[ITEMS * VEC];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      const int id = (i * LANES + lane) * VEC + j;
      keys[i * VEC + j] = id < E ? topk_key(packs[i].v[j], id) : 0u;
    }

  float total = 0.f;  // the sum over all E, needed only without renormalization
  if constexpr (RENORM != 1) {
    unsigned best = 0;
#pragma unroll
    for (int i = 0; i < ITEMS * VEC; ++i) best = max(best, keys[i]);
    total = group_exp_sum<LANES>(keys, key_logit(group_max<LANES, REDUX>(best)));
  }
  unsigned sel[TOPK];
  group_topk<LANES, REDUX, ITEMS * VEC, TOPK>(keys, sel);
  if (g < tokens) write_topk<LANES, TOPK, RENORM == 1>(topk_w, topk_ids, static_cast<long long>(t) * TOPK, sel, total, lane);
}
