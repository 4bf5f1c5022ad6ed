#include "bf16_pack.cuh"
#include "row_sum.cuh"

// One block of BLOCK threads per row. Each thread keeps its slice of r = bf16(x + residual) in
// registers between the sum of squares and the scaling, so x, residual and w are read once and
// residual and out written once. In place (out is x) is safe: a thread reads its elements of x
// before it writes out at the same elements, and no other thread touches them.
template <int BLOCK, int VEC, int HIDDEN>
__device__ __forceinline__ void fused_add_rmsnorm_row_regs(__nv_bfloat16* out, __nv_bfloat16* residual, const __nv_bfloat16* x,
                                                           const __nv_bfloat16* w, int tokens, int hidden, float eps,
                                                           float w_offset) {
  using Pack = Bf16Pack<VEC>;
  constexpr int ITEMS = (HIDDEN + BLOCK * VEC - 1) / (BLOCK * VEC);
  __shared__ float warp_sums[BLOCK / 32];
  const long long offset = static_cast<long long>(blockIdx.x) * HIDDEN;
  const Pack* xp = reinterpret_cast<const Pack*>(x + offset);
  Pack* rp = reinterpret_cast<Pack*>(residual + offset);

  float r[ITEMS][VEC];
  float sum_sq = 0.f;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * BLOCK + threadIdx.x;
    if (pack * VEC < HIDDEN) {
      const Pack a = xp[pack], b = rp[pack];
      Pack s;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        s.v[j] = __float2bfloat16(__bfloat162float(a.v[j]) + __bfloat162float(b.v[j]));
        r[i][j] = __bfloat162float(s.v[j]);
        sum_sq += r[i][j] * r[i][j];
      }
      rp[pack] = s;
    }
  }
  const float inv_rms = rsqrtf(row_sum<BLOCK>(sum_sq, warp_sums) / HIDDEN + eps);

  const Pack* wp = reinterpret_cast<const Pack*>(w);
  Pack* op = reinterpret_cast<Pack*>(out + offset);
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int pack = i * BLOCK + threadIdx.x;
    if (pack * VEC < HIDDEN) {
      const Pack wv = wp[pack];
      Pack o;
#pragma unroll
      for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(r[i][j] * inv_rms * (__bfloat162float(wv.v[j]) + w_offset));
      op[pack] = o;
    }
  }
}
