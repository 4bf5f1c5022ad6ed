#include <cuda_bf16.h>

// A correct rmsnorm, one thread per row: what must still pass after every fault below.
extern "C" __global__ void rmsnorm_right(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                         int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  float ss = 0.f;
  for (int h = 0; h < hidden; ++h) ss += __bfloat162float(row[h]) * __bfloat162float(row[h]);
  const float inv = rsqrtf(ss / hidden + eps);
  for (int h = 0; h < hidden; ++h)
    out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv * __bfloat162float(w[h]));
}
