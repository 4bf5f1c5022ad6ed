// fused_add_rmsnorm kernels written by hand, one warp per row (launch: grid tokens, block 32): a
// control, and one wrong way each to read the contract.
#include <cuda_bf16.h>

__device__ __forceinline__ float warp_total(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Right: r rounded and written back, the norm over the rounded r, the second pass reads residual.
extern "C" __global__ void fused_right(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                       const __nv_bfloat16* w, int tokens, int hidden, float eps, float w_offset) {
  const long long row = static_cast<long long>(blockIdx.x) * hidden;
  float sum_sq = 0.f;
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h]));
    residual[row + h] = r;
    sum_sq += __bfloat162float(r) * __bfloat162float(r);
  }
  const float inv = rsqrtf(warp_total(sum_sq) / hidden + eps);
  for (int h = threadIdx.x; h < hidden; h += 32)
    out[row + h] = __float2bfloat16(__bfloat162float(residual[row + h]) * inv * (__bfloat162float(w[h]) + w_offset));
}

// Wrong in place: keeps residual as it was through the first pass and writes it in the second,
// recomputing x + residual after out (which is x, in place) has been written.
extern "C" __global__ void fused_wrong_in_place(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                const __nv_bfloat16* w, int tokens, int hidden, float eps, float w_offset) {
  const long long row = static_cast<long long>(blockIdx.x) * hidden;
  float sum_sq = 0.f;
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const float r = __bfloat162float(__float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h])));
    sum_sq += r * r;
  }
  const float inv = rsqrtf(warp_total(sum_sq) / hidden + eps);
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h]));
    out[row + h] = __float2bfloat16(__bfloat162float(r) * inv * (__bfloat162float(w[h]) + w_offset));
    residual[row + h] = __float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h]));
  }
}

// Wrong: out is right, but residual is not written back.
extern "C" __global__ void fused_residual_not_written(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                      const __nv_bfloat16* w, int tokens, int hidden, float eps, float w_offset) {
  const long long row = static_cast<long long>(blockIdx.x) * hidden;
  float sum_sq = 0.f;
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const float r = __bfloat162float(__float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h])));
    sum_sq += r * r;
  }
  const float inv = rsqrtf(warp_total(sum_sq) / hidden + eps);
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const float r = __bfloat162float(__float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h])));
    out[row + h] = __float2bfloat16(r * inv * (__bfloat162float(w[h]) + w_offset));
  }
}

// Wrong: the norm is taken over the fp32 sum x + residual before it is rounded to bf16.
extern "C" __global__ void fused_unrounded_norm(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                const __nv_bfloat16* w, int tokens, int hidden, float eps, float w_offset) {
  const long long row = static_cast<long long>(blockIdx.x) * hidden;
  float sum_sq = 0.f;
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const float s = __bfloat162float(x[row + h]) + __bfloat162float(residual[row + h]);
    residual[row + h] = __float2bfloat16(s);
    sum_sq += s * s;
  }
  const float inv = rsqrtf(warp_total(sum_sq) / hidden + eps);
  for (int h = threadIdx.x; h < hidden; h += 32)
    out[row + h] = __float2bfloat16(__bfloat162float(residual[row + h]) * inv * (__bfloat162float(w[h]) + w_offset));
}

// Wrong: ignores w_offset (right only for norms whose weights are not zero-centred).
extern "C" __global__ void fused_ignores_w_offset(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                  const __nv_bfloat16* w, int tokens, int hidden, float eps, float w_offset) {
  const long long row = static_cast<long long>(blockIdx.x) * hidden;
  float sum_sq = 0.f;
  for (int h = threadIdx.x; h < hidden; h += 32) {
    const __nv_bfloat16 r = __float2bfloat16(__bfloat162float(x[row + h]) + __bfloat162float(residual[row + h]));
    residual[row + h] = r;
    sum_sq += __bfloat162float(r) * __bfloat162float(r);
  }
  const float inv = rsqrtf(warp_total(sum_sq) / hidden + eps);
  for (int h = threadIdx.x; h < hidden; h += 32)
    out[row + h] = __float2bfloat16(__bfloat162float(residual[row + h]) * inv * __bfloat162float(w[h]));
}
