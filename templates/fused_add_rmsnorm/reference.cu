#include <cuda_bf16.h>

// One thread per row, in double: r = bf16(x + residual) is written back first, then the norm is
// taken over the rounded r, as the contract says. Right in place (out is x) too: the row's x is
// read entirely before any of its out is written.
extern "C" __global__ void fused_add_rmsnorm_reference(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                       const __nv_bfloat16* w, int tokens, int hidden, float eps,
                                                       float w_offset) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const long long row = static_cast<long long>(t) * hidden;
  double sum_sq = 0.0;
  for (int h = 0; h < hidden; ++h) {
    const double s = static_cast<double>(__bfloat162float(x[row + h])) + __bfloat162float(residual[row + h]);
    const __nv_bfloat16 r = __float2bfloat16(static_cast<float>(s));
    residual[row + h] = r;
    const double v = __bfloat162float(r);
    sum_sq += v * v;
  }
  const double inv_rms = 1.0 / sqrt(sum_sq / hidden + static_cast<double>(eps));
  for (int h = 0; h < hidden; ++h) {
    const double weight = static_cast<double>(__bfloat162float(w[h])) + w_offset;
    const double v = static_cast<double>(__bfloat162float(residual[row + h])) * inv_rms * weight;
    out[row + h] = __float2bfloat16(static_cast<float>(v));
  }
}
