#pragma once
#include "bf16_pack.cuh"

// The part of one row that a thread owns when THREADS threads stride over it in VEC-wide packs.
// HIDDEN is a compile-time constant, so the slice stays in registers between the sum of squares
// and the scaling: x is read from memory once.
template <int THREADS, int VEC, int HIDDEN>
struct RowSlice {
  static constexpr int ITEMS = (HIDDEN + THREADS * VEC - 1) / (THREADS * VEC);
  float vals[ITEMS][VEC];

  // Loads the slice of `row` for thread `lane` and returns the sum of its squares.
  __device__ __forceinline__ float load(const __nv_bfloat16* row, int lane) {
    const Bf16Pack<VEC>* packs = reinterpret_cast<const Bf16Pack<VEC>*>(row);
    float sum_sq = 0.f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int pack = i * THREADS + lane;
      if (pack * VEC < HIDDEN) {
        const Bf16Pack<VEC> p = packs[pack];
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          vals[i][j] = __bfloat162float(p.v[j]);
          sum_sq += vals[i][j] * vals[i][j];
        }
      }
    }
    return sum_sq;
  }

  // Writes slice * inv_rms * w to the same positions of `out_row`.
  __device__ __forceinline__ void store(__nv_bfloat16* out_row, const __nv_bfloat16* w, int lane, float inv_rms) const {
    Bf16Pack<VEC>* out_packs = reinterpret_cast<Bf16Pack<VEC>*>(out_row);
    const Bf16Pack<VEC>* weight = reinterpret_cast<const Bf16Pack<VEC>*>(w);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const int pack = i * THREADS + lane;
      if (pack * VEC < HIDDEN) {
        const Bf16Pack<VEC> wp = weight[pack];
        Bf16Pack<VEC> o;
#pragma unroll
        for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(vals[i][j] * inv_rms * __bfloat162float(wp.v[j]));
        out_packs[pack] = o;
      }
    }
  }
};

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
