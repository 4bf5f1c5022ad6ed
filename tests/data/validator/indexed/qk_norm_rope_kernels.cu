// qk_norm_rope kernels written by hand, one thread per (token, head) (launch: grid tokens, block
// 32): a control, and one wrong way each to read the contract (or to break it by a hair). Each is the control with one
// mistake, named by its template argument.
#include <cuda_bf16.h>

enum Mistake { kNone, kInterleaved, kTokenIndex, kIgnoresQH, kIgnoresEps, kIgnoresOffset, kNormsV, kNormsGates, kNudgesGate };

template <Mistake M>
__device__ void norm_rotate_head(__nv_bfloat16* qkv, const __nv_bfloat16* q_w, const __nv_bfloat16* k_w, const float* cos_sin,
                                 const long long* positions, int HQ, int HKV, int D, int QH, int ROT, float eps,
                                 float w_offset) {
  const int t = blockIdx.x, qh = M == kIgnoresQH ? D : QH;
  // kNormsGates takes each q gate for one more q head, kNormsV takes the v heads for more k heads.
  const int hq = M == kNormsGates ? HQ * QH / D : HQ, heads = hq + HKV + (M == kNormsV ? HKV : 0);
  const int h = threadIdx.x;
  if (M == kNudgesGate && t == 0 && h == 0) {  // one bf16 ulp on one q gate element, far inside rtol 1/64
    __nv_bfloat16* gate = qkv + D + 2;
    *gate = __ushort_as_bfloat16(static_cast<unsigned short>(__bfloat16_as_ushort(*gate) + 1));
  }
  if (h >= heads) return;
  const int step = M == kNormsGates ? D : qh;
  __nv_bfloat16* x = qkv + static_cast<long long>(t) * (HQ * QH + 2 * HKV * D) +
                     (h < hq ? static_cast<long long>(h) * step : static_cast<long long>(HQ) * QH + static_cast<long long>(h - hq) * D);
  const __nv_bfloat16* w = h < hq ? q_w : k_w;
  float sum_sq = 0.f;
  for (int i = 0; i < D; ++i) sum_sq += __bfloat162float(x[i]) * __bfloat162float(x[i]);
  const float inv = rsqrtf(sum_sq / D + (M == kIgnoresEps ? 0.f : eps));
  const float offset = M == kIgnoresOffset ? 0.f : w_offset;
  float v[512];
  for (int i = 0; i < D; ++i) v[i] = __bfloat162float(x[i]) * inv * (__bfloat162float(w[i]) + offset);
  const long long p = M == kTokenIndex ? t : positions[t];
  const float* cs = cos_sin + p * ROT;
  const int half = ROT / 2;
  for (int i = 0; i < half; ++i) {
    const int a_at = M == kInterleaved ? 2 * i : i, b_at = M == kInterleaved ? 2 * i + 1 : i + half;
    const float a = v[a_at], b = v[b_at], c = cs[i], s = cs[half + i];
    v[a_at] = a * c - b * s;
    v[b_at] = b * c + a * s;
  }
  for (int i = 0; i < D; ++i) x[i] = __float2bfloat16(v[i]);
}

#define QK_ARGS __nv_bfloat16 *qkv, const __nv_bfloat16 *q_w, const __nv_bfloat16 *k_w, const float *cos_sin, \
                const long long *positions, int tokens, int HQ, int HKV, int D, int QH, int ROT, int MAXPOS, float eps, float w_offset
#define QK_CALL(m) norm_rotate_head<m>(qkv, q_w, k_w, cos_sin, positions, HQ, HKV, D, QH, ROT, eps, w_offset)
extern "C" __global__ void qk_right(QK_ARGS) { QK_CALL(kNone); }
extern "C" __global__ void qk_interleaved(QK_ARGS) { QK_CALL(kInterleaved); }
extern "C" __global__ void qk_token_index(QK_ARGS) { QK_CALL(kTokenIndex); }
extern "C" __global__ void qk_ignores_qh(QK_ARGS) { QK_CALL(kIgnoresQH); }
extern "C" __global__ void qk_ignores_eps(QK_ARGS) { QK_CALL(kIgnoresEps); }
extern "C" __global__ void qk_ignores_w_offset(QK_ARGS) { QK_CALL(kIgnoresOffset); }
extern "C" __global__ void qk_norms_v(QK_ARGS) { QK_CALL(kNormsV); }
extern "C" __global__ void qk_norms_gates(QK_ARGS) { QK_CALL(kNormsGates); }
extern "C" __global__ void qk_nudges_gate(QK_ARGS) { QK_CALL(kNudgesGate); }
