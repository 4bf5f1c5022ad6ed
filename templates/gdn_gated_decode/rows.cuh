#include "gating.cuh"

// A block owns a tile of WARPS * (32 / SPLIT) * C state rows of one (row, hv): a group of SPLIT
// lanes per C rows, each lane holding K / SPLIT consecutive floats of each of its rows. All C rows
// are loaded before the first is updated (C * K / SPLIT / 4 16-byte loads in flight per lane),
// read once and written once; the V tiles spread even batch 1 over V / tile * HV blocks.
template <int WARPS, int SPLIT, int C, int H, int HV, int K, int V>
__device__ __forceinline__ void gdn_gated_decode_rows(__nv_bfloat16* o, float* state, const __nv_bfloat16* qkv,
                                                      const __nv_bfloat16* a, const __nv_bfloat16* b, const float* A_log,
                                                      const __nv_bfloat16* dt_bias, const int* state_idx, int B, int h_arg,
                                                      int hv_arg, int k_arg, int v_arg, int SLOTS, float scale) {
  constexpr int GROUPS = 32 / SPLIT, KP = K / SPLIT;
  const int lane = threadIdx.x % 32, part = lane % SPLIT;
  const int j0 = ((blockIdx.x * WARPS + threadIdx.x / 32) * GROUPS + lane / SPLIT) * C;
  const int bh = blockIdx.y, row = bh / HV, hv = bh % HV, h = hv / (HV / H);
  __nv_bfloat16* out = o + static_cast<long long>(bh) * V + j0;
  const int slot = state_idx[row];  // the same for the whole block: all lanes leave together
  if (slot < 0) {
    if (part < C) out[part] = __float2bfloat16(0.f);
    return;
  }

  float* S = state + (static_cast<long long>(slot) * HV + hv) * V * K + static_cast<long long>(j0) * K + part * KP;
  float s[C][KP];
#pragma unroll
  for (int c = 0; c < C; ++c) load_row(s[c], S + c * K);

  const __nv_bfloat16* x = qkv + static_cast<long long>(row) * (2 * H * K + HV * V);
  float q[KP], k[KP], kq;
  gdn_load_qk<SPLIT, KP>(x + h * K, x + (H + h) * K, part, scale, q, k, kq);
  const GdnGate gate = gdn_gate(a[bh], b[bh], A_log[hv], dt_bias[hv]);
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const float oj = gdn_row_step<SPLIT, KP>(s[c], q, k, kq, gate, __bfloat162float(x[2 * H * K + hv * V + j0 + c]));
    if (part == 0) out[c] = __float2bfloat16(oj);
    store_row(S + c * K, s[c]);
  }
}
