#pragma once
#include "bf16_pack.cuh"

// The weights of VEC adjacent channels d0.., w[j][i] = weight[d0 + j, i]: VEC * W contiguous
// bf16, read in the widest packs (up to 16 bytes) that VEC * W allows; d0 is a multiple of VEC,
// so every pack is aligned. Kept as bf16 (half the registers), widened where used.
template <int VEC, int W>
__device__ __forceinline__ void load_weights(__nv_bfloat16 (&w)[VEC][W], const __nv_bfloat16* weight, int d0) {
  constexpr int N = VEC * W;
  constexpr int P = N % 8 == 0 ? 8 : N % 4 == 0 ? 4 : N % 2 == 0 ? 2 : 1;
  const Bf16Pack<P>* src = reinterpret_cast<const Bf16Pack<P>*>(weight + static_cast<long long>(d0) * W);
#pragma unroll
  for (int p = 0; p < N / P; ++p) {
    const Bf16Pack<P> v = src[p];
#pragma unroll
    for (int k = 0; k < P; ++k) w[(p * P + k) / W][(p * P + k) % W] = v.v[k];
  }
}

// out = silu(window . w) for VEC channels, the window being W packs (the state's W - 1 rows,
// oldest first, then x), in fp32.
template <int VEC, int W>
__device__ __forceinline__ Bf16Pack<VEC> conv_silu(const Bf16Pack<VEC> (&win)[W], const __nv_bfloat16 (&w)[VEC][W]) {
  Bf16Pack<VEC> o;
#pragma unroll
  for (int j = 0; j < VEC; ++j) {
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < W; ++i) acc = fmaf(__bfloat162float(win[i].v[j]), __bfloat162float(w[j][i]), acc);
    o.v[j] = __float2bfloat16(acc / (1.f + __expf(-acc)));
  }
  return o;
}

template <int VEC>
__device__ __forceinline__ Bf16Pack<VEC> zero_pack() {
  Bf16Pack<VEC> z;
#pragma unroll
  for (int j = 0; j < VEC; ++j) z.v[j] = __float2bfloat16(0.f);
  return z;
}
