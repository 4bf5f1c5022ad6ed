#include <cuda_bf16.h>

// One thread per (token t, output row k): for each of the token's experts in 0..E-1, the dot
// product of its row k of w2 with h[t,j,:] in double, times topk_w[t,j], summed in double over j
// in order and rounded once. Ids of another GPU's experts add nothing.
extern "C" __global__ void moe_down_reference(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2,
                                              const int* topk_ids, const float* topk_w, int tokens, int E, int TOPK, int N,
                                              int K) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = blockIdx.y;
  if (k >= K || t >= tokens) return;
  double sum = 0.0;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j;
    const int e = topk_ids[s];
    if (e < 0 || e >= E) continue;
    const __nv_bfloat16* hr = h + static_cast<long long>(s) * N;
    const __nv_bfloat16* wr = w2 + (static_cast<long long>(e) * K + k) * N;
    double dot = 0.0;
    for (int n = 0; n < N; ++n) dot += static_cast<double>(__bfloat162float(hr[n])) * __bfloat162float(wr[n]);
    sum += static_cast<double>(topk_w[s]) * dot;
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(static_cast<float>(sum));
}
