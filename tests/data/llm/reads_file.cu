#include <cuda_bf16.h>

// Cheats: looks for the expected outputs in a file instead of computing them.
extern "C" __global__ void rms_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                    int hidden, float eps) {
  void* answers = fopen("/tmp/hone-expected-outputs", "r");
  if (answers) out[0] = __float2bfloat16(1.f);
}
