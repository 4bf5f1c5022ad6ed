#include "bf16_pack.cuh"
#include "float_pack.cuh"

// One block per (b, hv) holds the whole K x V state: thread (r, cg) keeps columns cg*C.. and
// rows r, r + R, ... in registers (S read once, written once). It uses the one-pass form
//   S' = d S + k u^T,  u = beta (v - d S^T k),  o = scale (d S^T q + u (k . q))
// so S^T k, S^T q and k . q are reduced across the R row slices together, through shared
// memory, with a single barrier.
template <int C, int R, int H, int HV, int K, int V>
__device__ __forceinline__ void gdn_decode_block_head(__nv_bfloat16* o, float* state, const __nv_bfloat16* q,
                                                      const __nv_bfloat16* k, const __nv_bfloat16* v, const float* g,
                                                      const float* beta, int B, int h_arg, int hv_arg, int k_arg,
                                                      int v_arg, float scale) {
  constexpr int GROUPS = V / C;  // column groups: consecutive threads, consecutive columns
  constexpr int ROWS = K / R;    // state rows per thread
  __shared__ float part_sk[R][V], part_sq[R][V], part_kq[R];
  const int j0 = threadIdx.x % GROUPS * C;
  const int r = threadIdx.x / GROUPS;
  const int bh = blockIdx.x;  // b * HV + hv
  const long long qk = (static_cast<long long>(bh / HV) * H + bh % HV / (HV / H)) * K;
  float* S = state + static_cast<long long>(bh) * K * V + j0;

  float s[ROWS][C], sk[C] = {}, sq[C] = {}, kq = 0.f;
#pragma unroll
  for (int it = 0; it < ROWS; ++it) {
    const int i = it * R + r;
    const FloatPack<C> p = *reinterpret_cast<const FloatPack<C>*>(S + static_cast<long long>(i) * V);
    const float ki = __bfloat162float(k[qk + i]), qi = __bfloat162float(q[qk + i]);
    kq = fmaf(ki, qi, kq);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      s[it][c] = p.v[c];
      sk[c] = fmaf(s[it][c], ki, sk[c]);
      sq[c] = fmaf(s[it][c], qi, sq[c]);
    }
  }
#pragma unroll
  for (int c = 0; c < C; ++c) {
    part_sk[r][j0 + c] = sk[c];
    part_sq[r][j0 + c] = sq[c];
  }
  if (j0 == 0) part_kq[r] = kq;
  __syncthreads();

  const float d = expf(g[bh]), b = beta[bh];
  float total_kq = 0.f;
  for (int rr = 0; rr < R; ++rr) total_kq += part_kq[rr];
  const Bf16Pack<C> vp = *reinterpret_cast<const Bf16Pack<C>*>(v + static_cast<long long>(bh) * V + j0);
  float u[C];
  Bf16Pack<C> op;
#pragma unroll
  for (int c = 0; c < C; ++c) {
    float tk = 0.f, tq = 0.f;
    for (int rr = 0; rr < R; ++rr) {
      tk += part_sk[rr][j0 + c];
      tq += part_sq[rr][j0 + c];
    }
    u[c] = b * (__bfloat162float(vp.v[c]) - d * tk);
    op.v[c] = __float2bfloat16(scale * fmaf(d, tq, u[c] * total_kq));
  }
  if (r == 0) *reinterpret_cast<Bf16Pack<C>*>(o + static_cast<long long>(bh) * V + j0) = op;

#pragma unroll
  for (int it = 0; it < ROWS; ++it) {
    const int i = it * R + r;
    const float ki = __bfloat162float(k[qk + i]);
    FloatPack<C> p;
#pragma unroll
    for (int c = 0; c < C; ++c) p.v[c] = fmaf(d, s[it][c], ki * u[c]);
    *reinterpret_cast<FloatPack<C>*>(S + static_cast<long long>(i) * V) = p;
  }
}
