#pragma once
#include "bf16_pack.cuh"
#include "float_pack.cuh"
#include "group_sum.cuh"

// What every block of one (row, hv) computes before it touches the state: the decay exp(g) and
// beta, and its lane's slice of the l2-normalised q (times scale) and k. Each group of SPLIT
// adjacent lanes holds a whole head, lane `part` its KP = K / SPLIT consecutive elements, so
// group_sum<SPLIT> sums over K within the group.

struct GdnGate {
  float decay, beta;
};

__device__ __forceinline__ GdnGate gdn_gate(__nv_bfloat16 a, __nv_bfloat16 b, float A_log, __nv_bfloat16 dt_bias) {
  const float x = __bfloat162float(a) + __bfloat162float(dt_bias);
  const float softplus = x > 20.f ? x : log1pf(expf(x));
  return {expf(-expf(A_log) * softplus), 1.f / (1.f + expf(-__bfloat162float(b)))};
}

// q[i] = q_h[part * KP + i] * scale / |q_h|, k[i] likewise without scale; kq = q . k (of the whole head).
template <int SPLIT, int KP>
__device__ __forceinline__ void gdn_load_qk(const __nv_bfloat16* qh, const __nv_bfloat16* kh, int part, float scale,
                                            float (&q)[KP], float (&k)[KP], float& kq) {
  float qq = 0.f, kk = 0.f, qk = 0.f;
#pragma unroll
  for (int i = 0; i < KP; i += 4) {
    const Bf16Pack<4> qp = *reinterpret_cast<const Bf16Pack<4>*>(qh + part * KP + i);
    const Bf16Pack<4> kp = *reinterpret_cast<const Bf16Pack<4>*>(kh + part * KP + i);
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      q[i + c] = __bfloat162float(qp.v[c]);
      k[i + c] = __bfloat162float(kp.v[c]);
      qq = fmaf(q[i + c], q[i + c], qq);
      kk = fmaf(k[i + c], k[i + c], kk);
      qk = fmaf(q[i + c], k[i + c], qk);
    }
  }
  const float rq = rsqrtf(group_sum<SPLIT>(qq) + 1e-6f) * scale, rk = rsqrtf(group_sum<SPLIT>(kk) + 1e-6f);
  kq = group_sum<SPLIT>(qk) * rq * rk;
#pragma unroll
  for (int i = 0; i < KP; ++i) {
    q[i] *= rq;
    k[i] *= rk;
  }
}

// One state row's step, on the lane's KP elements s of it: with sk = S k and sq = S q summed over
// the group, u = beta (v - d sk), o = d sq + u (k . q), and s becomes d s + u k. Returns o.
template <int SPLIT, int KP>
__device__ __forceinline__ float gdn_row_step(float (&s)[KP], const float (&q)[KP], const float (&k)[KP], float kq,
                                              GdnGate gate, float v) {
  float sk = 0.f, sq = 0.f;
#pragma unroll
  for (int i = 0; i < KP; ++i) {
    sk = fmaf(s[i], k[i], sk);
    sq = fmaf(s[i], q[i], sq);
  }
  sk = group_sum<SPLIT>(sk);
  sq = group_sum<SPLIT>(sq);
  const float u = gate.beta * (v - gate.decay * sk);
#pragma unroll
  for (int i = 0; i < KP; ++i) s[i] = fmaf(gate.decay, s[i], u * k[i]);
  return fmaf(gate.decay, sq, u * kq);
}

template <int KP>
__device__ __forceinline__ void load_row(float (&s)[KP], const float* p) {
#pragma unroll
  for (int i = 0; i < KP; i += 4) {
    const FloatPack<4> f = *reinterpret_cast<const FloatPack<4>*>(p + i);
#pragma unroll
    for (int c = 0; c < 4; ++c) s[i + c] = f.v[c];
  }
}

template <int KP>
__device__ __forceinline__ void store_row(float* p, const float (&s)[KP]) {
#pragma unroll
  for (int i = 0; i < KP; i += 4) {
    FloatPack<4> f;
#pragma unroll
    for (int c = 0; c < 4; ++c) f.v[c] = s[i + c];
    *reinterpret_cast<FloatPack<4>*>(p + i) = f;
  }
}
