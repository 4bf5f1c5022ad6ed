#include <cuda_bf16.h>

// Thread 0 leaves before the barrier the others wait at.
extern "C" __global__ void rmsnorm_diverges_at_barrier(__nv_bfloat16* out, const __nv_bfloat16* x,
                                                       const __nv_bfloat16* w, int tokens, int hidden, float eps) {
  if (threadIdx.x == 0) return;
  __syncthreads();
}
