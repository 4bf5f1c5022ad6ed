#include <cuda_bf16.h>
#include <stdio.h>

extern "C" __global__ void silu_stdio(__nv_bfloat16* out, const __nv_bfloat16* in, int tokens, int inter) {
  if (threadIdx.x == 0) printf("hello\n");
}
