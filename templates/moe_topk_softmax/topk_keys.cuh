#pragma once
#include <cuda_bf16.h>

#include "group_sum.cuh"

// One 32-bit key per logit whose unsigned order is the contract's: the bf16 bits made
// order-preserving in the high half, 0xffff - id in the low half, so the largest key is the largest
// logit and, among equal logits, the lowest id (-0 is made +0, which it equals). Every real key is
// above 0 (E <= 65535), so 0 marks a padding slot or an expert already chosen.
__device__ __forceinline__ unsigned topk_key(__nv_bfloat16 x, int id) {
  unsigned u = __bfloat16_as_ushort(x);
  if (u == 0x8000u) u = 0;
  u = (u & 0x8000u) ? (~u & 0xffffu) : (u | 0x8000u);
  return (u << 16) | (0xffffu - static_cast<unsigned>(id));
}
__device__ __forceinline__ float key_logit(unsigned key) {
  const unsigned u = key >> 16;
  return __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>((u & 0x8000u) ? (u & 0x7fffu) : (~u & 0xffffu))));
}
__device__ __forceinline__ int key_id(unsigned key) { return static_cast<int>(0xffffu - (key & 0xffffu)); }

// The largest key over aligned groups of LANES lanes: xor shuffles, or (REDUX, LANES == 32) one
// __reduce_max_sync. Every lane of the warp calls it.
template <int LANES, int REDUX>
__device__ __forceinline__ unsigned group_max(unsigned k) {
  if constexpr (REDUX) {
    static_assert(LANES == 32, "__reduce_max_sync reduces the whole warp");
    return __reduce_max_sync(0xffffffffu, k);
  } else {
#pragma unroll
    for (int o = LANES / 2; o > 0; o >>= 1) k = max(k, __shfl_xor_sync(0xffffffffu, k, o));
    return k;
  }
}

// sum over the lane's real keys of exp(logit - m), summed over the group.
template <int LANES, int N>
__device__ __forceinline__ float group_exp_sum(const unsigned (&keys)[N], float m) {
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N; ++i) s += keys[i] ? expf(key_logit(keys[i]) - m) : 0.f;
  return group_sum<LANES>(s);
}

// TOPK rounds over the group's keys (N per lane): each round the group's largest remaining key is
// taken (keys are unique, so exactly one lane clears it); every lane ends with all TOPK in order.
template <int LANES, int REDUX, int N, int TOPK>
__device__ __forceinline__ void group_topk(unsigned (&keys)[N], unsigned (&sel)[TOPK]) {
  unsigned best = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) best = max(best, keys[i]);
#pragma unroll
  for (int r = 0; r < TOPK; ++r) {
    const unsigned win = group_max<LANES, REDUX>(best);
    sel[r] = win;
    best = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      keys[i] = keys[i] == win ? 0u : keys[i];
      best = max(best, keys[i]);
    }
  }
}

// Weights of the chosen keys: exp(logit - m) over their own sum (renormalize is 1) or over
// `total`, the sum over all E; lane l of the group writes places l, l + LANES, ...
template <int LANES, int TOPK, bool RENORM>
__device__ __forceinline__ void write_topk(float* topk_w, int* topk_ids, long long row, const unsigned (&sel)[TOPK],
                                           float total, int lane) {
  const float m = key_logit(sel[0]);
  float e[TOPK], chosen = 0.f;
#pragma unroll
  for (int r = 0; r < TOPK; ++r) {
    e[r] = expf(key_logit(sel[r]) - m);
    chosen += e[r];
  }
  const float denom = RENORM ? chosen : total;
#pragma unroll
  for (int r = 0; r < TOPK; ++r)
    if (r % LANES == lane) {
      topk_w[row + r] = e[r] / denom;
      topk_ids[row + r] = key_id(sel[r]);
    }
}
