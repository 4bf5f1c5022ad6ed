#include <cuda_bf16.h>

// The same kernel as rmsnorm_warp.cu with its one __syncthreads removed: warps read weights
// that other warps have not staged yet.
constexpr int kWarps = 4;
constexpr int kMaxHidden = 4096;

extern "C" __global__ void rmsnorm_warp(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                        int hidden, float eps) {
  __shared__ float weight[kMaxHidden];
  for (int h = threadIdx.x; h < hidden; h += blockDim.x) weight[h] = __bfloat162float(w[h]);

  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * kWarps + threadIdx.x / 32;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  float sum_sq = 0.f;
  for (int h = lane; h < hidden; h += 32) {
    const float v = __bfloat162float(row[h]);
    sum_sq += v * v;
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, offset);
  const float inv_rms = rsqrtf(sum_sq / hidden + eps);
  for (int h = lane; h < hidden; h += 32)
    out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv_rms * weight[h]);
}
