#include "head_norm_rope.cuh"

// HEADS heads per block, LANES lanes per head, over a flat grid of tokens * (HQ + HKV) heads: each
// group reads its token's position and its head's cos/sin packs itself. Groups past the last head
// still take part in the shuffles of their warp.
template <int LANES, int HEADS, int VEC, int HQ, int HKV, int D, int QH, int ROT>
__device__ __forceinline__ void qk_norm_rope_head_groups(__nv_bfloat16* qkv, const __nv_bfloat16* q_w, const __nv_bfloat16* k_w,
                                                         const float* cos_sin, const long long* positions, int tokens, int,
                                                         int, int, int, int, int, float eps, float w_offset) {
  constexpr int ALL = HQ + HKV;
  const long long job = static_cast<long long>(blockIdx.x) * HEADS + threadIdx.x / LANES;
  const bool live = job < static_cast<long long>(tokens) * ALL;
  const long long t = live ? job / ALL : 0;
  const int h = live ? static_cast<int>(job % ALL) : 0;
  __nv_bfloat16* x = qkv + t * (static_cast<long long>(HQ) * QH + 2LL * HKV * D) + head_offset<HQ, D, QH>(h);
  head_norm_rope<LANES, VEC, D, ROT>(x, h < HQ ? q_w : k_w, cos_sin + positions[t] * ROT, eps, w_offset, threadIdx.x % LANES, live);
}
