#include <cuda_bf16.h>

extern "C" __global__ void silu_asm(__nv_bfloat16* out, const __nv_bfloat16* in, int tokens, int inter) {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long long)tokens * inter) out[i] = in[i];
}
