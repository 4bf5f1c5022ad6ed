#pragma once
#include "bf16_pack.cuh"
#include "group_sum.cuh"
#include "silu.cuh"

// The part of one row that lane l of a group of LANES lanes owns: packs l, l + LANES, ... of VEC
// values (D % (LANES * VEC) == 0), x and z held from load to store, so each is read once.
template <int LANES, int VEC, int D>
struct GatedRow {
  using Pack = Bf16Pack<VEC>;
  static constexpr int ITEMS = D / (LANES * VEC);
  Pack x[ITEMS], z[ITEMS];

  __device__ __forceinline__ void load(const __nv_bfloat16* xr, const __nv_bfloat16* zr, int lane) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      x[i] = reinterpret_cast<const Pack*>(xr)[i * LANES + lane];
      z[i] = reinterpret_cast<const Pack*>(zr)[i * LANES + lane];
    }
  }

  // The row's sum of squares: the lane's part, then xor shuffles within the aligned group (every
  // lane of the warp runs them).
  __device__ __forceinline__ float sum_sq() const {
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i)
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        const float v = __bfloat162float(x[i].v[j]);
        s = fmaf(v, v, s);
      }
    return group_sum<LANES>(s);
  }

  // out = x * inv_rms * w * silu(z) at the lane's packs; w holds the lane's ITEMS packs of the weight.
  __device__ __forceinline__ void store(__nv_bfloat16* orow, const Pack (&w)[ITEMS], float inv_rms, int lane) const {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      Pack o;
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        o.v[j] = __float2bfloat16(silu_times(__bfloat162float(z[i].v[j]), __bfloat162float(x[i].v[j]) * inv_rms * __bfloat162float(w[i].v[j])));
      reinterpret_cast<Pack*>(orow)[i * LANES + lane] = o;
    }
  }
};

template <int LANES, int VEC, int D>
__device__ __forceinline__ void load_gate_weights(Bf16Pack<VEC> (&wp)[D / (LANES * VEC)], const __nv_bfloat16* w, int lane) {
#pragma unroll
  for (int i = 0; i < D / (LANES * VEC); ++i) wp[i] = reinterpret_cast<const Bf16Pack<VEC>*>(w)[i * LANES + lane];
}
