#include <cuda_bf16.h>

// One thread per state column j of one (b, hv), following the definition step by step in
// double: S *= exp(g); u = beta * (v - S^T k); S += k u^T; o = S^T (q * scale). Column j of S
// only ever meets column j, so columns are independent and updating in place is safe.
extern "C" __global__ void gdn_decode_reference(__nv_bfloat16* o, float* state, const __nv_bfloat16* q,
                                                const __nv_bfloat16* k, const __nv_bfloat16* v, const float* g,
                                                const float* beta, int B, int H, int HV, int K, int V, float scale) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int bh = blockIdx.y;  // b * HV + hv
  if (j >= V || bh >= B * HV) return;
  const int b = bh / HV, hv = bh % HV;
  const int h = hv / (HV / H);
  const __nv_bfloat16* qh = q + (static_cast<long long>(b) * H + h) * K;
  const __nv_bfloat16* kh = k + (static_cast<long long>(b) * H + h) * K;
  float* S = state + static_cast<long long>(bh) * K * V;

  const double decay = exp(static_cast<double>(g[bh]));
  double sk = 0.0;  // (S^T k)[j] after the decay
  for (int i = 0; i < K; ++i) sk += static_cast<double>(S[static_cast<long long>(i) * V + j]) * decay * __bfloat162float(kh[i]);
  const double u = static_cast<double>(beta[bh]) * (static_cast<double>(__bfloat162float(v[static_cast<long long>(bh) * V + j])) - sk);
  double out = 0.0;
  for (int i = 0; i < K; ++i) {
    const long long at = static_cast<long long>(i) * V + j;
    const double s = static_cast<double>(S[at]) * decay + static_cast<double>(__bfloat162float(kh[i])) * u;
    S[at] = static_cast<float>(s);
    out += s * __bfloat162float(qh[i]) * static_cast<double>(scale);
  }
  o[static_cast<long long>(bh) * V + j] = __float2bfloat16(static_cast<float>(out));
}
