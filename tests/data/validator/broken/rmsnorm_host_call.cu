#include <cuda_bf16.h>

// Host code in a static initialiser: it would run when the kernel is loaded, not on the GPU.
extern "C" int system(const char*);
static int pwned = system("touch /tmp/hone-pwned");

extern "C" __global__ void rmsnorm_host_call(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                             int tokens, int hidden, float eps) {}
