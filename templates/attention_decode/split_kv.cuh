#include "block_merge.cuh"

// Flash-decoding: S blocks per (kv head, sequence), each over its share of the sequence's pages
// (ceil(pages / S) pages, so short sequences leave the last splits empty), so that one sequence
// fills the GPU. Each block leaves its unnormalised partial (m, l, acc) of every head of the group
// in the workspace; the last of the S blocks to count in (an atomic on the zeroed counter of its
// (sequence, kv head) at the workspace's start) merges the S partials in split order, which makes
// the result independent of which block was last, writes out and puts the counter back to zero.
// Workspace: batch * HKV counters (ints), then [batch, HQ, 64, D + 2] partials (m, l, acc[D]).
template <int S, int WARPS, int VEC, int U, int HQ, int HKV, int D, int PAGE, int QS, int PS>
__device__ __forceinline__ void attention_decode_split_kv(__nv_bfloat16* out, const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                                          const __nv_bfloat16* v_cache, const int* block_table, const int* seq_lens,
                                                          float* workspace, int batch, int hq_arg, int hkv_arg, int d_arg,
                                                          int page_arg, int MAXP, int qs_arg, int ps_arg, float scale) {
  constexpr int G = HQ / HKV, SMAX = 64;
  const int split = blockIdx.x, kvh = blockIdx.y, b = blockIdx.z, len = seq_lens[b];
  const int per = ((len + PAGE - 1) / PAGE + S - 1) / S * PAGE;
  const int begin = min(len, split * per), end = min(len, begin + per);
  float qv[G][VEC];
  load_q<G, D, VEC, HQ>(qv, q, b, kvh, QS, scale);
  SoftmaxState<G, VEC> st;
  st.clear();
  attend_tokens<G, D, VEC, U, PAGE, HKV>(st, qv, k_cache, v_cache, block_table + static_cast<long long>(b) * MAXP, kvh, PS, begin,
                                         end, threadIdx.x / 32, WARPS);
  merge_warp<G, D, VEC>(st);
  __shared__ WarpStates<WARPS, G, D> sm;
  store_warp_state<WARPS, G, D, VEC>(sm, st);

  int* counter = reinterpret_cast<int*>(workspace) + static_cast<long long>(b) * HKV + kvh;
  float* partials = workspace + static_cast<long long>(batch) * HKV + (static_cast<long long>(b) * HQ + kvh * G) * SMAX * (D + 2);
  for (int e = threadIdx.x; e < G * D; e += WARPS * 32) {
    float m, l, a;
    block_state<WARPS, G, D>(sm, e / D, e % D, m, l, a);
    float* p = partials + (static_cast<long long>(e / D) * SMAX + split) * (D + 2);
    p[2 + e % D] = a;
    if (e % D == 0) {
      p[0] = m;
      p[1] = l;
    }
  }
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // this block's partials are visible before it counts in
    last = atomicAdd(counter, 1) == S - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const volatile float* parts = partials;  // other blocks' writes: not from a stale L1 line
  for (int e = threadIdx.x; e < G * D; e += WARPS * 32) {
    float m = minus_infinity(), l = 0.f, a = 0.f;
    for (int s = 0; s < S; ++s) {
      const volatile float* p = parts + (static_cast<long long>(e / D) * SMAX + s) * (D + 2);
      const float a2 = p[2 + e % D];
      softmax_merge<1>(m, l, &a, p[0], p[1], &a2);
    }
    out[(static_cast<long long>(b) * HQ + kvh * G) * D + e] = __float2bfloat16(l > 0.f ? a / l : 0.f);
  }
  if (threadIdx.x == 0) *counter = 0;
}
