#include <cuda_bf16.h>

// One thread per (token, q or k head), in double: the head's RMSNorm over its D values (weights
// q_w or k_w plus w_offset), then the NeoX rotary over the normed first ROT dims. Q head j starts
// at j*QH in the row (QH = 2*D leaves Qwen3-Next's gate after each q head untouched), k heads at
// HQ*QH; v heads are never touched. Each pair is read whole (from the unnormed input, normed here)
// before either element is written, so in place is right.
extern "C" __global__ void qk_norm_rope_reference(__nv_bfloat16* qkv, const __nv_bfloat16* q_w, const __nv_bfloat16* k_w,
                                                  const float* cos_sin, const long long* positions, int tokens, int HQ,
                                                  int HKV, int D, int QH, int ROT, int MAXPOS, float eps, float w_offset) {
  const long long job = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int heads = HQ + HKV;
  if (job >= static_cast<long long>(tokens) * heads) return;
  const long long t = job / heads;
  const int h = static_cast<int>(job % heads);
  const bool is_q = h < HQ;
  __nv_bfloat16* x = qkv + t * (static_cast<long long>(HQ) * QH + 2LL * HKV * D) +
                     (is_q ? static_cast<long long>(h) * QH : static_cast<long long>(HQ) * QH + static_cast<long long>(h - HQ) * D);
  const __nv_bfloat16* w = is_q ? q_w : k_w;
  double sum_sq = 0.0;
  for (int i = 0; i < D; ++i) sum_sq += static_cast<double>(__bfloat162float(x[i])) * __bfloat162float(x[i]);
  const double inv_rms = 1.0 / sqrt(sum_sq / D + static_cast<double>(eps));
  auto normed = [&](int i) { return __bfloat162float(x[i]) * inv_rms * (static_cast<double>(__bfloat162float(w[i])) + w_offset); };

  const float* cs = cos_sin + positions[t] * ROT;
  const int half = ROT / 2;
  for (int i = 0; i < half; ++i) {
    const double a = normed(i), b = normed(i + half), c = cs[i], s = cs[half + i];
    x[i] = __float2bfloat16(static_cast<float>(a * c - b * s));
    x[i + half] = __float2bfloat16(static_cast<float>(b * c + a * s));
  }
  for (int i = ROT; i < D; ++i) x[i] = __float2bfloat16(static_cast<float>(normed(i)));
}
