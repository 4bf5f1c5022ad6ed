#include <cuda_bf16.h>

// Ways to end the process running the kernel.

__device__ __noinline__ float recurse(volatile float* p, int depth) {
  volatile float local[512];
  local[depth & 511] = p[0];
  if (depth == -1) return local[0];  // never: but the recursion is not provably infinite
  return recurse(local, depth + 1) + local[(depth * 3) & 511];
}

// Unbounded recursion: the fiber's stack overflows.
extern "C" __global__ void rmsnorm_overflows_stack(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int tokens, int hidden, float eps) {
  volatile float seed = eps;
  out[0] = __float2bfloat16(recurse(&seed, 0));
}

// Writes through a null pointer: no buffer of the launch is anywhere near.
extern "C" __global__ void rmsnorm_writes_null(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                               int tokens, int hidden, float eps) {
  volatile int* nowhere = nullptr;
  *nowhere = tokens;
}

// Divides an integer by zero: on x86 the CPU traps (SIGFPE), a signal emu does not explain, so the
// process running the kernel dies of it. (The GPU returns an unspecified value instead.)
extern "C" __global__ void rmsnorm_divides_by_zero(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int tokens, int hidden, float eps) {
  volatile int zero = tokens - tokens;
  out[0] = __float2bfloat16(static_cast<float>(hidden / zero));
}
