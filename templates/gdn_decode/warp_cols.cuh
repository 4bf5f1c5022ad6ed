#include "bf16_pack.cuh"
#include "float_pack.cuh"

// A warp owns 32 / SPLIT groups of C adjacent state columns of one (b, hv); the SPLIT lanes of a
// group share its columns and split the K rows (lane rows r, r + SPLIT, ...), keeping their
// K / SPLIT x C slice of S in registers: S is read once and written once. Each row step of the
// warp reads SPLIT contiguous segments of 32 / SPLIT * C floats (>= one 32-byte sector).
// Group lanes sit 32 / SPLIT apart, so xor shuffles from 16 down to 32 / SPLIT sum a column.
template <int WARPS, int SPLIT, int C, int H, int HV, int K, int V>
__device__ __forceinline__ void gdn_decode_warp_cols(__nv_bfloat16* o, float* state, const __nv_bfloat16* q,
                                                     const __nv_bfloat16* k, const __nv_bfloat16* v, const float* g,
                                                     const float* beta, int B, int h_arg, int hv_arg, int k_arg,
                                                     int v_arg, float scale) {
  constexpr int GROUPS = 32 / SPLIT;  // column groups per warp
  constexpr int ROWS = K / SPLIT;     // state rows per lane
  const int lane = threadIdx.x % 32;
  const int r = lane / GROUPS;
  const int j0 = ((blockIdx.x * WARPS + threadIdx.x / 32) * GROUPS + lane % GROUPS) * C;
  const int bh = blockIdx.y;  // b * HV + hv; the grid covers exactly B * HV
  const long long qk = (static_cast<long long>(bh / HV) * H + bh % HV / (HV / H)) * K;
  float* S = state + static_cast<long long>(bh) * K * V + j0;
  const float decay = expf(g[bh]);

  float s[ROWS][C];
  float sk[C] = {};
#pragma unroll
  for (int it = 0; it < ROWS; ++it) {
    const int i = it * SPLIT + r;
    const FloatPack<C> p = *reinterpret_cast<const FloatPack<C>*>(S + static_cast<long long>(i) * V);
    const float ki = __bfloat162float(k[qk + i]);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      s[it][c] = p.v[c] * decay;
      sk[c] = fmaf(s[it][c], ki, sk[c]);
    }
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int offset = 16; offset >= GROUPS; offset >>= 1) sk[c] += __shfl_xor_sync(0xffffffffu, sk[c], offset);

  const float b = beta[bh];
  const Bf16Pack<C> vp = *reinterpret_cast<const Bf16Pack<C>*>(v + static_cast<long long>(bh) * V + j0);
  float u[C], out[C] = {};
#pragma unroll
  for (int c = 0; c < C; ++c) u[c] = b * (__bfloat162float(vp.v[c]) - sk[c]);

#pragma unroll
  for (int it = 0; it < ROWS; ++it) {
    const int i = it * SPLIT + r;
    const float ki = __bfloat162float(k[qk + i]);
    const float qi = __bfloat162float(q[qk + i]);
    FloatPack<C> p;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      p.v[c] = fmaf(ki, u[c], s[it][c]);
      out[c] = fmaf(p.v[c], qi, out[c]);
    }
    *reinterpret_cast<FloatPack<C>*>(S + static_cast<long long>(i) * V) = p;
  }
#pragma unroll
  for (int c = 0; c < C; ++c)
#pragma unroll
    for (int offset = 16; offset >= GROUPS; offset >>= 1) out[c] += __shfl_xor_sync(0xffffffffu, out[c], offset);

  if (r == 0) {
    Bf16Pack<C> op;
#pragma unroll
    for (int c = 0; c < C; ++c) op.v[c] = __float2bfloat16(out[c] * scale);
    *reinterpret_cast<Bf16Pack<C>*>(o + static_cast<long long>(bh) * V + j0) = op;
  }
}
