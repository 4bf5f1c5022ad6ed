#include <cuda_bf16.h>

// Spins forever in every thread: only the time limit ends it.
extern "C" __global__ void rmsnorm_spins(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                         int hidden, float eps) {
  volatile int spin = 1;
  while (spin) {
  }
}
