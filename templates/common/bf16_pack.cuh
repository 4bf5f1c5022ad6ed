#pragma once
#include <cuda_bf16.h>

// VEC consecutive bf16 values moved as one aligned load or store (VEC=8 is 16 bytes).
template <int VEC>
struct alignas(2 * VEC) Bf16Pack {
  __nv_bfloat16 v[VEC];
};
