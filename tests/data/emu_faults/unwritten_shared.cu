#include <cuda_bf16.h>

// One warp per row; the per-lane partial sums go through shared memory, but only the low half
// of the warp writes its slot: the sum reads 16 slots that nothing wrote.
extern "C" __global__ void rmsnorm_reads_unwritten_shared(__nv_bfloat16* out, const __nv_bfloat16* x,
                                                          const __nv_bfloat16* w, int tokens, int hidden, float eps) {
  __shared__ float partial[32];
  const int row = blockIdx.x, lane = threadIdx.x;
  if (row >= tokens) return;
  const __nv_bfloat16* r = x + (long long)row * hidden;
  float ss = 0.f;
  for (int h = lane; h < hidden; h += 32) ss += __bfloat162float(r[h]) * __bfloat162float(r[h]);
  if (lane < 16) partial[lane] = ss;
  __syncthreads();
  float total = 0.f;
  for (int i = 0; i < 32; ++i) total += partial[i];
  const float inv = rsqrtf(total / hidden + eps);
  for (int h = lane; h < hidden; h += 32)
    out[(long long)row * hidden + h] = __float2bfloat16(__bfloat162float(r[h]) * inv * __bfloat162float(w[h]));
}
