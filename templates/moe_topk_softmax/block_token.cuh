#include "bf16_pack.cuh"
#include "topk_keys.cuh"

// One block of WARPS warps per token, for large E: thread k loads packs k, k + 32 * WARPS, ... of
// VEC logits and keeps them as keys in registers. Two levels: each warp chooses its own top TOPK
// (TOPK rounds of a warp max, no barrier), leaves them in shared memory, and after the one barrier
// warp 0 chooses the top TOPK of those WARPS * TOPK candidates. Without renormalization each warp
// also leaves its max and its sum of exp(logit - max), rescaled to the token's max by warp 0.
template <int WARPS, int VEC, int REDUX, int E, int TOPK, int RENORM>
__device__ __forceinline__ void moe_topk_softmax_block_token(float* topk_w, int* topk_ids, const __nv_bfloat16* logits,
                                                             int tokens, int e_arg, int topk_arg, int renormalize) {
  using Pack = Bf16Pack<VEC>;
  constexpr int THREADS = 32 * WARPS;
  constexpr int ITEMS = (E + THREADS * VEC - 1) / (THREADS * VEC);
  constexpr int M = (WARPS * TOPK + 31) / 32;  // candidates per lane of warp 0
  __shared__ unsigned cand[32 * M];
  __shared__ float warp_m[WARPS], warp_total[WARPS];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const Pack* row = reinterpret_cast<const Pack*>(logits + static_cast<long long>(blockIdx.x) * E);

  Pack packs[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if ((i * THREADS + threadIdx.x) * VEC < E) packs[i] = row[i * THREADS + threadIdx.x];
  unsigned keys[ITEMS * VEC];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      const int id = (i * THREADS + threadIdx.x) * VEC + j;
      keys[i * VEC + j] = id < E ? topk_key(packs[i].v[j], id) : 0u;
    }

  if constexpr (RENORM != 1) {
    unsigned best = 0;
#pragma unroll
    for (int i = 0; i < ITEMS * VEC; ++i) best = max(best, keys[i]);
    const float m = key_logit(group_max<32, REDUX>(best));  // every warp has a real key: THREADS * VEC <= E
    const float s = group_exp_sum<32>(keys, m);
    if (lane == 0) warp_m[warp] = m, warp_total[warp] = s;
  }
  unsigned sel[TOPK];
  group_topk<32, REDUX, ITEMS * VEC, TOPK>(keys, sel);
#pragma unroll
  for (int r = 0; r < TOPK; ++r)
    if (r % 32 == lane) cand[warp * TOPK + r] = sel[r];
  for (int i = WARPS * TOPK + threadIdx.x; i < 32 * M; i += THREADS) cand[i] = 0u;
  __syncthreads();
  if (warp != 0) return;  // after the only barrier: warp 0, whole, does the rest

  unsigned keys0[M];
#pragma unroll
  for (int i = 0; i < M; ++i) keys0[i] = cand[i * 32 + lane];
  group_topk<32, REDUX, M, TOPK>(keys0, sel);
  float total = 0.f;
  if constexpr (RENORM != 1)
    total = group_sum<32>(lane < WARPS ? warp_total[lane] * expf(warp_m[lane] - key_logit(sel[0])) : 0.f);
  write_topk<32, TOPK, RENORM == 1>(topk_w, topk_ids, static_cast<long long>(blockIdx.x) * TOPK, sel, total, lane);
}
