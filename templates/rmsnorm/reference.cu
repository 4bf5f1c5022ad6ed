#include <cuda_bf16.h>

// One thread per row, sums in double in index order: slow and obviously right.
extern "C" __global__ void rmsnorm_reference(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                             int tokens, int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + static_cast<long long>(t) * hidden;
  double sum_sq = 0.0;
  for (int h = 0; h < hidden; ++h) {
    const double v = __bfloat162float(row[h]);
    sum_sq += v * v;
  }
  const double inv_rms = 1.0 / sqrt(sum_sq / hidden + static_cast<double>(eps));
  for (int h = 0; h < hidden; ++h) {
    const double v = static_cast<double>(__bfloat162float(row[h])) * inv_rms * __bfloat162float(w[h]);
    out[static_cast<long long>(t) * hidden + h] = __float2bfloat16(static_cast<float>(v));
  }
}
