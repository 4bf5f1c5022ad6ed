#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_syntax(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                          int hidden, float eps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x
  if (t < tokens) out[t] = x[t];
}
