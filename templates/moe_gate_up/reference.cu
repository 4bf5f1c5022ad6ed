#include <cuda_bf16.h>

// One thread per (slot s = t * TOPK + j, row n): both dot products in double in index order,
// silu(g) * u in double, rounded once. An expert id outside 0..E-1 (another GPU's) gives 0.
extern "C" __global__ void moe_gate_up_reference(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                                 const int* topk_ids, int tokens, int E, int TOPK, int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int s = blockIdx.y;
  if (n >= N || s >= tokens * TOPK) return;
  const int e = topk_ids[s];
  double out = 0.0;
  if (e >= 0 && e < E) {
    const __nv_bfloat16* xr = x + static_cast<long long>(s / TOPK) * K;
    const __nv_bfloat16* gate = w13 + (static_cast<long long>(e) * 2 * N + n) * K;
    const __nv_bfloat16* up = w13 + (static_cast<long long>(e) * 2 * N + N + n) * K;
    double g = 0.0, u = 0.0;
    for (int k = 0; k < K; ++k) {
      const double xv = __bfloat162float(xr[k]);
      g += xv * __bfloat162float(gate[k]);
      u += xv * __bfloat162float(up[k]);
    }
    out = g / (1.0 + exp(-g)) * u;
  }
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(static_cast<float>(out));
}
