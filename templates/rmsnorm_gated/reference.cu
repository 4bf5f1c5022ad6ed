#include <cuda_bf16.h>

// One thread per row, in double: the row's mean square over its D values, then
// out = x * rsqrt(mean + eps) * w * silu(z), each element rounded once.
extern "C" __global__ void rmsnorm_gated_reference(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* z,
                                                   const __nv_bfloat16* w, int rows, int D, float eps) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const long long row = static_cast<long long>(r) * D;
  double sum_sq = 0.0;
  for (int i = 0; i < D; ++i) {
    const double v = __bfloat162float(x[row + i]);
    sum_sq += v * v;
  }
  const double inv_rms = 1.0 / sqrt(sum_sq / D + static_cast<double>(eps));
  for (int i = 0; i < D; ++i) {
    const double g = __bfloat162float(z[row + i]);
    const double v = static_cast<double>(__bfloat162float(x[row + i])) * inv_rms * __bfloat162float(w[i]) * (g / (1.0 + exp(-g)));
    out[row + i] = __float2bfloat16(static_cast<float>(v));
  }
}
