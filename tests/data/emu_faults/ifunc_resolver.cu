#include <cuda_bf16.h>
#include <stdio.h>

// An IFUNC resolver is host code the dynamic loader runs while it loads the object (to pick the
// implementation of `pick_scale`): no initialiser section shows it, so the sandbox must.
extern "C" {
static float scale_one(float v) { return v; }
// Not static: clang looks an ifunc's resolver up by its symbol, which a static function lacks.
void* resolve_pick_scale() {
  if (FILE* f = fopen(HONE_TEST_PATH, "w")) fclose(f);
  return reinterpret_cast<void*>(&scale_one);
}
float pick_scale(float v) __attribute__((ifunc("resolve_pick_scale")));
}

extern "C" __global__ void rmsnorm_ifunc_at_load(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                 int tokens, int hidden, float eps) {
  out[threadIdx.x] = __float2bfloat16(pick_scale(1.0f));
}
