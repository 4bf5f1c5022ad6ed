#include <cuda_bf16.h>

// Right, but sums each row 200 times over: far slower than the reference, on any device.
extern "C" __global__ void rms_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                    int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + static_cast<long long>(t) * 256;
  volatile float sum_sq = 0.f;
  for (int r = 0; r < 200; ++r) {
    float s = 0.f;
    for (int h = 0; h < 256; ++h) {
      const float v = __bfloat162float(row[h]);
      s += v * v;
    }
    sum_sq = s;
  }
  const float inv_rms = rsqrtf(sum_sq / 256 + eps);
  __nv_bfloat16* o = out + static_cast<long long>(t) * 256;
  for (int h = 0; h < 256; ++h) o[h] = __float2bfloat16(__bfloat162float(row[h]) * inv_rms * __bfloat162float(w[h]));
}
