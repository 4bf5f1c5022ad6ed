#pragma once
#include "bf16_pack.cuh"
#include "float_pack.cuh"

// The NeoX rotary of VEC pairs (x[j], x[j + HALF]) of one head by their cos c[j] and sin s[j],
// in place. Both packs are loaded before either is stored.
template <int VEC, int HALF>
__device__ __forceinline__ void rotate_pack(__nv_bfloat16* x, const FloatPack<VEC>& c, const FloatPack<VEC>& s) {
  using Pack = Bf16Pack<VEC>;
  Pack* lo = reinterpret_cast<Pack*>(x);
  Pack* hi = reinterpret_cast<Pack*>(x + HALF);
  Pack a = *lo, b = *hi;
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    const float u = __bfloat162float(a.v[j]), w = __bfloat162float(b.v[j]);
    a.v[j] = __float2bfloat16(u * c.v[j] - w * s.v[j]);
    b.v[j] = __float2bfloat16(w * c.v[j] + u * s.v[j]);
  }
  *lo = a;
  *hi = b;
}
