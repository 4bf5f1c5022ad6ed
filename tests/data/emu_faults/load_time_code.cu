#include <cuda_bf16.h>
#include <stdio.h>

// Host code that runs when the kernel's shared object is loaded, before any launch.

// A namespace-scope object with a constructor: refused when the kernel is built.
struct Opener {
  Opener() {
    if (FILE* f = fopen(HONE_TEST_PATH, "w")) fclose(f);
  }
};
static Opener opener;

extern "C" __global__ void rmsnorm_static_initialiser(__nv_bfloat16* out, const __nv_bfloat16* x,
                                                      const __nv_bfloat16* w, int tokens, int hidden, float eps) {}
