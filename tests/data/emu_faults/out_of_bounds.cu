#include <cuda_bf16.h>

// Reads and writes outside the buffers, far enough to leave any canary zone behind.

extern "C" __global__ void rmsnorm_writes_past_end(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int tokens, int hidden, float eps) {
  if (threadIdx.x == 1) out[(long long)tokens * hidden + 1024] = __float2bfloat16(1.0f);
}

extern "C" __global__ void rmsnorm_reads_past_end(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  if (threadIdx.x == 2) out[0] = x[(long long)tokens * hidden + 2048];
}

extern "C" __global__ void rmsnorm_reads_before_start(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                      int tokens, int hidden, float eps) {
  if (threadIdx.x == 3) out[0] = w[-2048];
}
