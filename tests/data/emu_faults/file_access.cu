#include <cuda_bf16.h>
#include <stdio.h>
#include <unistd.h>

// Host calls from kernel code (NVRTC refuses them; the emu build does not): each must be
// stopped by the sandbox before it touches HONE_TEST_PATH.

extern "C" __global__ void rmsnorm_creates_file(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {
  FILE* f = fopen(HONE_TEST_PATH, "w");
  if (f) {
    fputs("written by a kernel\n", f);
    fclose(f);
  }
}

extern "C" __global__ void rmsnorm_reads_file(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                              int tokens, int hidden, float eps) {
  FILE* f = fopen(HONE_TEST_PATH, "r");
  if (f) {
    out[0] = __float2bfloat16(static_cast<float>(fgetc(f)));
    fclose(f);
  }
}

extern "C" __global__ void rmsnorm_removes_file(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {
  unlink(HONE_TEST_PATH);
}
