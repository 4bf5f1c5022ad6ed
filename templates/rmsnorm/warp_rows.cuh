#include "bf16_pack.cuh"

// One warp per row, WARPS rows per block: no shared memory and no block barrier, which suits
// short rows (per-head q/k norms) where a whole block per row would sit idle.
template <int WARPS, int VEC, int HIDDEN>
__device__ __forceinline__ void rmsnorm_warp_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  constexpr int STRIDE = 32 * VEC;
  constexpr int ITEMS = (HIDDEN + STRIDE - 1) / STRIDE;
  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * WARPS + threadIdx.x / 32;
  if (t >= tokens) return;  // whole warps leave together: no warp intrinsic sees a missing lane

  const Bf16Pack<VEC>* row = reinterpret_cast<const Bf16Pack<VEC>*>(x + static_cast<long long>(t) * HIDDEN);
  Bf16Pack<VEC>* out_row = reinterpret_cast<Bf16Pack<VEC>*>(out + static_cast<long long>(t) * HIDDEN);
  const Bf16Pack<VEC>* weight = reinterpret_cast<const Bf16Pack<VEC>*>(w);

  float vals[ITEMS][VEC];
  float sum_sq = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * 32 + lane;
    if (pack * VEC < HIDDEN) {
      const Bf16Pack<VEC> p = row[pack];
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        vals[i][j] = __bfloat162float(p.v[j]);
        sum_sq += vals[i][j] * vals[i][j];
      }
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, offset);
  const float inv_rms = rsqrtf(sum_sq / HIDDEN + eps);

#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * 32 + lane;
    if (pack * VEC < HIDDEN) {
      const Bf16Pack<VEC> wp = weight[pack];
      Bf16Pack<VEC> o;
#pragma unroll
      for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(vals[i][j] * inv_rms * __bfloat162float(wp.v[j]));
      out_row[pack] = o;
    }
  }
}
