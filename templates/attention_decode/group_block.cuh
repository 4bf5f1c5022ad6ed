#include "block_merge.cuh"

// One block per (kv head, sequence), serving the G = HQ / HKV q heads of the group, so each K and V
// row is read once for all of them. The WARPS warps take turns over the sequence's tokens (U steps
// of 32 / (D / VEC) tokens each), then their softmax states are combined through shared memory.
// The workspace is not used.
template <int WARPS, int VEC, int U, int HQ, int HKV, int D, int PAGE, int QS, int PS>
__device__ __forceinline__ void attention_decode_group_block(__nv_bfloat16* out, const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                                             const __nv_bfloat16* v_cache, const int* block_table,
                                                             const int* seq_lens, float* workspace, int batch, int hq_arg,
                                                             int hkv_arg, int d_arg, int page_arg, int MAXP, int qs_arg,
                                                             int ps_arg, float scale) {
  constexpr int G = HQ / HKV;
  const int kvh = blockIdx.x, b = blockIdx.y, len = seq_lens[b];
  float qv[G][VEC];
  load_q<G, D, VEC, HQ>(qv, q, b, kvh, QS, scale);
  SoftmaxState<G, VEC> st;
  st.clear();
  attend_tokens<G, D, VEC, U, PAGE, HKV>(st, qv, k_cache, v_cache, block_table + static_cast<long long>(b) * MAXP, kvh, PS, 0, len,
                                         threadIdx.x / 32, WARPS);
  merge_warp<G, D, VEC>(st);
  __shared__ WarpStates<WARPS, G, D> sm;
  store_warp_state<WARPS, G, D, VEC>(sm, st);
  for (int e = threadIdx.x; e < G * D; e += WARPS * 32) {
    float m, l, a;
    block_state<WARPS, G, D>(sm, e / D, e % D, m, l, a);
    out[(static_cast<long long>(b) * HQ + kvh * G) * D + e] = __float2bfloat16(l > 0.f ? a / l : 0.f);
  }
}
