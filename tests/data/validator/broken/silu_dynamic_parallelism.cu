#include <cuda_bf16.h>

__global__ void silu_child(__nv_bfloat16* out) {}

extern "C" __global__ void silu_parent(__nv_bfloat16* out, const __nv_bfloat16* in, int tokens, int inter) {
  if (threadIdx.x == 0) silu_child<<<1, 1>>>(out);
}
