#include "gating.cuh"

// A block walks V / VSPLIT state rows of one (row, hv) in steps of WARPS * (32 / SPLIT) rows (a
// group of SPLIT lanes per row, K / SPLIT floats a lane), loading the next step's rows while it
// updates this step's: the state streams through registers, read once and written once, with a
// row always in flight. VSPLIT blocks share a head, to fill the GPU at small batch.
template <int WARPS, int SPLIT, int VSPLIT, int H, int HV, int K, int V>
__device__ __forceinline__ void gdn_gated_decode_stream(__nv_bfloat16* o, float* state, const __nv_bfloat16* qkv,
                                                        const __nv_bfloat16* a, const __nv_bfloat16* b, const float* A_log,
                                                        const __nv_bfloat16* dt_bias, const int* state_idx, int B, int h_arg,
                                                        int hv_arg, int k_arg, int v_arg, int SLOTS, float scale) {
  constexpr int GROUPS = 32 / SPLIT, KP = K / SPLIT, STEP = WARPS * GROUPS, STEPS = V / VSPLIT / STEP;
  const int lane = threadIdx.x % 32, part = lane % SPLIT;
  const int bh = blockIdx.y, row = bh / HV, hv = bh % HV, h = hv / (HV / H);
  const int j0 = blockIdx.x * (V / VSPLIT) + threadIdx.x / 32 * GROUPS + lane / SPLIT;
  __nv_bfloat16* out = o + static_cast<long long>(bh) * V;
  const int slot = state_idx[row];  // the same for the whole block: all lanes leave together
  if (slot < 0) {
    for (int t = 0; t < STEPS; ++t)
      if (part == 0) out[j0 + t * STEP] = __float2bfloat16(0.f);
    return;
  }

  float* S = state + (static_cast<long long>(slot) * HV + hv) * V * K + part * KP;
  float next[KP];
  load_row(next, S + static_cast<long long>(j0) * K);

  const __nv_bfloat16* x = qkv + static_cast<long long>(row) * (2 * H * K + HV * V);
  float q[KP], k[KP], kq;
  gdn_load_qk<SPLIT, KP>(x + h * K, x + (H + h) * K, part, scale, q, k, kq);
  const GdnGate gate = gdn_gate(a[bh], b[bh], A_log[hv], dt_bias[hv]);
  const __nv_bfloat16* v = x + 2 * H * K + hv * V;
#pragma unroll 2
  for (int t = 0; t < STEPS; ++t) {
    const int j = j0 + t * STEP;
    float s[KP];
#pragma unroll
    for (int i = 0; i < KP; ++i) s[i] = next[i];
    if (t + 1 < STEPS) load_row(next, S + static_cast<long long>(j + STEP) * K);
    const float oj = gdn_row_step<SPLIT, KP>(s, q, k, kq, gate, __bfloat162float(v[j]));
    if (part == 0) out[j] = __float2bfloat16(oj);
    store_row(S + static_cast<long long>(j) * K, s);
  }
}
