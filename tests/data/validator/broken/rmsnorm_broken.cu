#include <cuda_bf16.h>

// rmsnorm kernels that are wrong, or cheat, each in one way a validator stage must catch.
// One thread per row, launched with grid ceil_div(tokens, 32), block 32.

__device__ float inv_rms(const __nv_bfloat16* row, int hidden, float eps, bool with_eps) {
  float ss = 0.f;
  for (int h = 0; h < hidden; ++h) {
    const float v = __bfloat162float(row[h]);
    ss += v * v;
  }
  return with_eps ? rsqrtf(ss / hidden + eps) : rsqrtf(ss / hidden);
}

// Leaves eps out: right while rows are not tiny, wrong on the hidden tests' tiny inputs.
extern "C" __global__ void rmsnorm_no_eps(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                          int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  const float inv = inv_rms(row, hidden, eps, false);
  for (int h = 0; h < hidden; ++h)
    out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv * __bfloat162float(w[h]));
}

// Writes nothing, counting on the output still holding an earlier (the reference's) result.
extern "C" __global__ void rmsnorm_stale_output(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {}

// Normalises in place in its input before copying: right output, broken input.
extern "C" __global__ void rmsnorm_modifies_input(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  __nv_bfloat16* row = const_cast<__nv_bfloat16*>(x) + (long long)t * hidden;
  const float inv = inv_rms(row, hidden, eps, true);
  for (int h = 0; h < hidden; ++h) {
    const __nv_bfloat16 v = __float2bfloat16(__bfloat162float(row[h]) * inv * __bfloat162float(w[h]));
    out[(long long)t * hidden + h] = v;
    row[h] = v;
  }
}

// Has hidden as a float: not rmsnorm's signature.
extern "C" __global__ void rmsnorm_wrong_signature(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int tokens, float hidden, float eps) {}
