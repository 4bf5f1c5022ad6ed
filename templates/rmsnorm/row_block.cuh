#include "bf16_pack.cuh"

// One block per row. HIDDEN is a compile-time constant, so each thread keeps its slice of the
// row in registers between the sum of squares and the scaling: x is read from memory once.
template <int BLOCK, int VEC, int HIDDEN>
__device__ __forceinline__ void rmsnorm_row_block(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  constexpr int STRIDE = BLOCK * VEC;
  constexpr int ITEMS = (HIDDEN + STRIDE - 1) / STRIDE;
  constexpr int WARPS = BLOCK / 32 > 0 ? BLOCK / 32 : 1;
  __shared__ float warp_sums[WARPS];
  __shared__ float inv_rms_shared;

  const int t = blockIdx.x;
  const Bf16Pack<VEC>* row = reinterpret_cast<const Bf16Pack<VEC>*>(x + static_cast<long long>(t) * HIDDEN);
  Bf16Pack<VEC>* out_row = reinterpret_cast<Bf16Pack<VEC>*>(out + static_cast<long long>(t) * HIDDEN);
  const Bf16Pack<VEC>* weight = reinterpret_cast<const Bf16Pack<VEC>*>(w);

  float vals[ITEMS][VEC];
  float sum_sq = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * BLOCK + threadIdx.x;
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
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum_sq;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int i = 0; i < WARPS; ++i) total += warp_sums[i];
    inv_rms_shared = rsqrtf(total / HIDDEN + eps);
  }
  __syncthreads();
  const float inv_rms = inv_rms_shared;

#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * BLOCK + threadIdx.x;
    if (pack * VEC < HIDDEN) {
      const Bf16Pack<VEC> wp = weight[pack];
      Bf16Pack<VEC> o;
#pragma unroll
      for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(vals[i][j] * inv_rms * __bfloat162float(wp.v[j]));
      out_row[pack] = o;
    }
  }
}
