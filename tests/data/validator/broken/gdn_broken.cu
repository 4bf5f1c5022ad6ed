#include <cuda_bf16.h>

// gdn_decode kernels that are wrong. One thread per state column j of one (b, hv), launched with
// grid (B * HV), block V.

__device__ void gdn_column(__nv_bfloat16* o, float* state, const __nv_bfloat16* q, const __nv_bfloat16* k,
                           const __nv_bfloat16* v, const float* g, const float* beta, int B, int H, int HV, int K, int V,
                           float scale, bool decay, bool store) {
  const int bh = blockIdx.x, b = bh / HV, hv = bh % HV, h = hv / (HV / H), j = threadIdx.x;
  if (j >= V) return;
  float* S = state + (long long)bh * K * V;
  const __nv_bfloat16* qk = q + ((long long)b * H + h) * K;
  const __nv_bfloat16* kk = k + ((long long)b * H + h) * K;
  const float d = decay ? expf(g[bh]) : 1.f;
  float sk = 0.f;
  for (int i = 0; i < K; ++i) sk += S[(long long)i * V + j] * d * __bfloat162float(kk[i]);
  const float u = beta[bh] * (__bfloat162float(v[(long long)bh * V + j]) - sk);
  float out = 0.f;
  for (int i = 0; i < K; ++i) {
    const float s = S[(long long)i * V + j] * d + __bfloat162float(kk[i]) * u;
    if (store) S[(long long)i * V + j] = s;
    out += s * __bfloat162float(qk[i]) * scale;
  }
  o[(long long)bh * V + j] = __float2bfloat16(out);
}

// Forgets the decay exp(g).
extern "C" __global__ void gdn_no_decay(__nv_bfloat16* o, float* state, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                        const __nv_bfloat16* v, const float* g, const float* beta, int B, int H, int HV,
                                        int K, int V, float scale) {
  gdn_column(o, state, q, k, v, g, beta, B, H, HV, K, V, scale, false, true);
}

// Gets o right and never writes the new state back.
extern "C" __global__ void gdn_state_not_stored(__nv_bfloat16* o, float* state, const __nv_bfloat16* q,
                                                const __nv_bfloat16* k, const __nv_bfloat16* v, const float* g,
                                                const float* beta, int B, int H, int HV, int K, int V, float scale) {
  gdn_column(o, state, q, k, v, g, beta, B, H, HV, K, V, scale, true, false);
}

// Right, for reference: the broken ones differ from it in one flag each.
extern "C" __global__ void gdn_right(__nv_bfloat16* o, float* state, const __nv_bfloat16* q, const __nv_bfloat16* k,
                                     const __nv_bfloat16* v, const float* g, const float* beta, int B, int H, int HV, int K,
                                     int V, float scale) {
  gdn_column(o, state, q, k, v, g, beta, B, H, HV, K, V, scale, true, true);
}
