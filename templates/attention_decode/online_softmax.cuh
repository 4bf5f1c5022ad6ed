#pragma once
#include <cuda_bf16.h>

#include "bf16_pack.cuh"

// The running softmax of one lane over the tokens it has seen, for the G q heads of one kv head:
// the largest score m, the sum l of exp(score - m), and the VEC value dims the lane owns, weighted.
// An empty state has m = -inf and l = 0; combining with it changes nothing.
// -inf without <math.h>, which NVRTC lacks.
__device__ __forceinline__ float minus_infinity() { return __int_as_float(0xff800000u); }

template <int G, int VEC>
struct SoftmaxState {
  float m[G], l[G], acc[G][VEC];

  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      m[g] = minus_infinity();
      l[g] = 0.f;
#pragma unroll
      for (int j = 0; j < VEC; ++j) acc[g][j] = 0.f;
    }
  }
};

// exp(m_old - m_new), where an empty side (m_old = -inf) weighs nothing.
__device__ __forceinline__ float softmax_rescale(float m_old, float m_new) { return m_old == minus_infinity() ? 0.f : __expf(m_old - m_new); }

// Folds (m2, l2, a2) into (m, l, a): one head's partial softmax merged with another's.
template <int N>
__device__ __forceinline__ void softmax_merge(float& m, float& l, float* a, float m2, float l2, const float* a2) {
  const float top = fmaxf(m, m2);
  const float c1 = softmax_rescale(m, top), c2 = softmax_rescale(m2, top);
  l = l * c1 + l2 * c2;
#pragma unroll
  for (int j = 0; j < N; ++j) a[j] = a[j] * c1 + a2[j] * c2;
  m = top;
}

// Sums each of N values over the aligned group of 2 O lanes that hold parts of them (xor offsets
// O, O/2, .., 1) and leaves every sum in every lane of the group. While N is even, each exchange
// halves what a lane holds (a reduce-scatter) and the same exchanges in reverse hand the halves
// back (an all-gather): 2 (N - 1) + log2(2 O / N) shuffles for N a power of two up to 2 O, against
// N log2(2 O) for a butterfly per value. Each sum is made once and handed on (in a butterfly, by
// both lanes of a pair alike), so every lane of the group ends with the same bits.
template <int N, int O>
__device__ __forceinline__ void sum_over_lanes(float (&v)[N]) {
  if constexpr (O > 0) {
    if constexpr (N % 2 == 1) {
#pragma unroll
      for (int o = O; o > 0; o >>= 1)
#pragma unroll
        for (int j = 0; j < N; ++j) v[j] += __shfl_xor_sync(0xffffffffu, v[j], o);
    } else {
      constexpr int H = N / 2;
      const bool upper = threadIdx.x & O;  // keeps the upper half, hands over the lower
      float h[H];
#pragma unroll
      for (int j = 0; j < H; ++j) {
        const float mine = upper ? v[j + H] : v[j], theirs = __shfl_xor_sync(0xffffffffu, upper ? v[j] : v[j + H], O);
        h[j] = upper ? theirs + mine : mine + theirs;  // the lower lane's part first, in either lane
      }
      sum_over_lanes<H, O / 2>(h);
#pragma unroll
      for (int j = 0; j < H; ++j) {
        const float other = __shfl_xor_sync(0xffffffffu, h[j], O);
        v[j] = upper ? other : h[j];
        v[j + H] = upper ? h[j] : other;
      }
    }
  }
}

// The tokens [begin, end) of one sequence seen by one warp (its `warp` of `warps`), the tokens of
// each step spread over the warp: L = D / VEC lanes hold one token's K (and V) row, VEC dims each,
// so a step covers 32 / L tokens, U steps of loads issued before any math (U * 2 loads in flight).
// q is the lane's VEC dims of each of the G heads, already times the scale. The U * G scores of a
// step are summed over their L lanes together (sum_over_lanes). Page lookups go through the
// sequence's row of the block table; offsets are 64-bit (a pool passes 2^31 elements).
template <int G, int D, int VEC, int U, int PAGE, int HKV>
__device__ __forceinline__ void attend_tokens(SoftmaxState<G, VEC>& st, const float (&qv)[G][VEC], const __nv_bfloat16* k_cache,
                                              const __nv_bfloat16* v_cache, const int* table_row, int kvh, long long page_stride,
                                              int begin, int end, int warp, int warps) {
  constexpr int L = D / VEC, T = 32 / L;
  const int lane = threadIdx.x % 32, sub = lane / L, part = lane % L;
  for (int base = begin + warp * T * U; base < end; base += warps * T * U) {  // the same trip count on every lane
    Bf16Pack<VEC> kp[U], vp[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int i = base + u * T + sub;
      if (i >= end) continue;
      const long long at = static_cast<long long>(table_row[i / PAGE]) * page_stride +
                           (static_cast<long long>(i % PAGE) * HKV + kvh) * D + part * VEC;
      kp[u] = *reinterpret_cast<const Bf16Pack<VEC>*>(k_cache + at);
      vp[u] = *reinterpret_cast<const Bf16Pack<VEC>*>(v_cache + at);
    }
    float s[U * G];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const bool valid = base + u * T + sub < end;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        s[u * G + g] = 0.f;
#pragma unroll
        for (int j = 0; j < VEC; ++j) s[u * G + g] = valid ? fmaf(qv[g][j], __bfloat162float(kp[u].v[j]), s[u * G + g]) : 0.f;
      }
    }
    sum_over_lanes<U * G, L / 2>(s);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (base + u * T + sub >= end) continue;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float top = fmaxf(st.m[g], s[u * G + g]);
        const float c = softmax_rescale(st.m[g], top), p = __expf(s[u * G + g] - top);
        st.l[g] = st.l[g] * c + p;
#pragma unroll
        for (int j = 0; j < VEC; ++j) st.acc[g][j] = fmaf(p, __bfloat162float(vp[u].v[j]), st.acc[g][j] * c);
        st.m[g] = top;
      }
    }
  }
}

// Merges the states of the lanes that hold the same dims (lanes L apart): afterwards lanes
// 0..L-1 hold the warp's state.
template <int G, int D, int VEC>
__device__ __forceinline__ void merge_warp(SoftmaxState<G, VEC>& st) {
  constexpr int L = D / VEC;
#pragma unroll
  for (int offset = 16; offset >= L; offset >>= 1) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float a2[VEC];
#pragma unroll
      for (int j = 0; j < VEC; ++j) a2[j] = __shfl_xor_sync(0xffffffffu, st.acc[g][j], offset);
      const float m2 = __shfl_xor_sync(0xffffffffu, st.m[g], offset), l2 = __shfl_xor_sync(0xffffffffu, st.l[g], offset);
      softmax_merge<VEC>(st.m[g], st.l[g], st.acc[g], m2, l2, a2);
    }
  }
}

// The lane's q dims of the G heads of kv head kvh, times the scale.
template <int G, int D, int VEC, int HQ>
__device__ __forceinline__ void load_q(float (&qv)[G][VEC], const __nv_bfloat16* q, int b, int kvh, long long q_stride, float scale) {
  const int part = threadIdx.x % 32 % (D / VEC);
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const Bf16Pack<VEC> p =
        *reinterpret_cast<const Bf16Pack<VEC>*>(q + b * q_stride + static_cast<long long>(kvh * G + g) * D + part * VEC);
#pragma unroll
    for (int j = 0; j < VEC; ++j) qv[g][j] = __bfloat162float(p.v[j]) * scale;
  }
}
