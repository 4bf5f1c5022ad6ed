#include "bf16_pack.cuh"
#include "row_sum.cuh"

// ROWS rows per block, THREADS threads per row, in two passes over the row: the first writes
// r = bf16(x + residual) back to residual and sums its squares, the second reads r back (the
// thread's own writes, from L1 or L2) and scales it. Nothing of the row is kept in registers, so
// any hidden size fits, and small rows share a block. In place (out is x) is safe: the second
// pass reads residual, never x.
template <int THREADS, int ROWS, int VEC, int HIDDEN>
__device__ __forceinline__ void fused_add_rmsnorm_rows_two_pass(__nv_bfloat16* out, __nv_bfloat16* residual,
                                                                const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                                                int hidden, float eps, float w_offset) {
  using Pack = Bf16Pack<VEC>;
  constexpr int PACKS = HIDDEN / VEC;
  __shared__ float warp_sums[ROWS * THREADS / 32];
  const int lane = threadIdx.x % THREADS;
  const int t = blockIdx.x * ROWS + threadIdx.x / THREADS;
  const bool live = t < tokens;  // rows past the end still take part in row_sum's shuffles and barriers
  const long long offset = static_cast<long long>(live ? t : 0) * HIDDEN;
  const Pack* xp = reinterpret_cast<const Pack*>(x + offset);
  Pack* rp = reinterpret_cast<Pack*>(residual + offset);

  float sum_sq = 0.f;
  if (live) {
    for (int pack = lane; pack < PACKS; pack += THREADS) {
      const Pack a = xp[pack], b = rp[pack];
      Pack s;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        s.v[j] = __float2bfloat16(__bfloat162float(a.v[j]) + __bfloat162float(b.v[j]));
        const float v = __bfloat162float(s.v[j]);
        sum_sq += v * v;
      }
      rp[pack] = s;
    }
  }
  const float inv_rms = rsqrtf(row_sum<THREADS>(sum_sq, warp_sums) / HIDDEN + eps);
  if (!live) return;

  const Pack* wp = reinterpret_cast<const Pack*>(w);
  Pack* op = reinterpret_cast<Pack*>(out + offset);
  for (int pack = lane; pack < PACKS; pack += THREADS) {
    const Pack s = rp[pack], wv = wp[pack];
    Pack o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(__bfloat162float(s.v[j]) * inv_rms * (__bfloat162float(wv.v[j]) + w_offset));
    op[pack] = o;
  }
}
