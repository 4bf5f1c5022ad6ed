#include <cuda_bf16.h>

// Hand-written gdn_gated_decode kernels, one thread per state row j of one (row, hv), in float:
// one right, and one for each way a fused gated step goes wrong in engines' hands.
enum Fault { kRight, kNoStateUpdate, kRowAsSlot, kPaddedTouchesState, kNoL2Norm, kNoSoftplus, kBetaUngated, kKeyHeadPerValueHead };

template <Fault F>
__device__ void step(__nv_bfloat16* o, float* state, const __nv_bfloat16* qkv, const __nv_bfloat16* a, const __nv_bfloat16* b,
                     const float* A_log, const __nv_bfloat16* dt_bias, const int* state_idx, int B, int H, int HV, int K, int V,
                     float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, bh = blockIdx.y;
  if (j >= V) return;
  const int row = bh / HV, hv = bh % HV;
  const int h = F == kKeyHeadPerValueHead ? hv % H : hv / (HV / H);
  int slot = F == kRowAsSlot ? row : state_idx[row];
  if (slot < 0) {
    if (F != kPaddedTouchesState) {
      o[bh * V + j] = __float2bfloat16(0.f);
      return;
    }
    slot = 0;
  }
  const __nv_bfloat16* x = qkv + row * (2 * H * K + HV * V);
  const __nv_bfloat16 *qh = x + h * K, *kh = x + (H + h) * K;
  float qq = 0.f, kk = 0.f;
  for (int i = 0; i < K; ++i) {
    qq += __bfloat162float(qh[i]) * __bfloat162float(qh[i]);
    kk += __bfloat162float(kh[i]) * __bfloat162float(kh[i]);
  }
  const float rq = F == kNoL2Norm ? 1.f : rsqrtf(qq + 1e-6f), rk = F == kNoL2Norm ? 1.f : rsqrtf(kk + 1e-6f);
  const float xg = __bfloat162float(a[bh]) + __bfloat162float(dt_bias[hv]);
  const float softplus = F == kNoSoftplus ? xg : (xg > 20.f ? xg : log1pf(expf(xg)));
  const float decay = expf(-expf(A_log[hv]) * softplus);
  const float beta = F == kBetaUngated ? __bfloat162float(b[bh]) : 1.f / (1.f + expf(-__bfloat162float(b[bh])));

  float* S = state + (static_cast<long long>(slot) * HV + hv) * V * K + static_cast<long long>(j) * K;
  float sk = 0.f;
  for (int i = 0; i < K; ++i) sk += S[i] * decay * __bfloat162float(kh[i]) * rk;
  const float u = beta * (__bfloat162float(x[2 * H * K + hv * V + j]) - sk);
  float out = 0.f;
  for (int i = 0; i < K; ++i) {
    const float s = S[i] * decay + __bfloat162float(kh[i]) * rk * u;
    if (F != kNoStateUpdate) S[i] = s;
    out += s * __bfloat162float(qh[i]) * rq * scale;
  }
  // A padded row that runs on slot 0 still writes o = 0: the state it touches gives it away, or, when a real row
  // of the same call also holds slot 0, that row's 'o' read from the raced state.
  o[bh * V + j] = __float2bfloat16(F == kPaddedTouchesState && state_idx[row] < 0 ? 0.f : out);
}

#define GDN_KERNEL(name, fault)                                                                                              \
  extern "C" __global__ void name(__nv_bfloat16* o, float* state, const __nv_bfloat16* qkv, const __nv_bfloat16* a,          \
                                  const __nv_bfloat16* b, const float* A_log, const __nv_bfloat16* dt_bias,                  \
                                  const int* state_idx, int B, int H, int HV, int K, int V, int SLOTS, float scale) {        \
    step<fault>(o, state, qkv, a, b, A_log, dt_bias, state_idx, B, H, HV, K, V, scale);                                      \
  }

GDN_KERNEL(gdn_right, kRight)
GDN_KERNEL(gdn_no_state_update, kNoStateUpdate)
GDN_KERNEL(gdn_row_as_slot, kRowAsSlot)
GDN_KERNEL(gdn_padded_touches_state, kPaddedTouchesState)
GDN_KERNEL(gdn_no_l2_norm, kNoL2Norm)
GDN_KERNEL(gdn_no_softplus, kNoSoftplus)
GDN_KERNEL(gdn_beta_ungated, kBetaUngated)
GDN_KERNEL(gdn_key_head_per_value_head, kKeyHeadPerValueHead)
