#include "head_norm_rope.cuh"

// One block per token: its position is read once and its cos/sin row staged in shared memory,
// then GROUPS groups of LANES lanes go through the token's HQ + HKV q and k heads, every group the
// same number of rounds (a group without a head in the last round still shuffles with its warp).
template <int LANES, int GROUPS, int VEC, int HQ, int HKV, int D, int QH, int ROT>
__device__ __forceinline__ void qk_norm_rope_token_block(__nv_bfloat16* qkv, const __nv_bfloat16* q_w, const __nv_bfloat16* k_w,
                                                         const float* cos_sin, const long long* positions, int, int, int,
                                                         int, int, int, int, float eps, float w_offset) {
  constexpr int ALL = HQ + HKV, ROUNDS = (ALL + GROUPS - 1) / GROUPS;
  __shared__ __align__(16) float cs[ROT];
  const long long t = blockIdx.x;
  const float* row_cs = cos_sin + positions[t] * ROT;
  for (int i = threadIdx.x; i < ROT; i += LANES * GROUPS) cs[i] = row_cs[i];
  __syncthreads();
  __nv_bfloat16* row = qkv + t * (static_cast<long long>(HQ) * QH + 2LL * HKV * D);
  const int group = threadIdx.x / LANES;
#pragma unroll 1
  for (int r = 0; r < ROUNDS; ++r) {
    const int h = r * GROUPS + group;
    const bool live = h < ALL;
    head_norm_rope<LANES, VEC, D, ROT>(row + head_offset<HQ, D, QH>(live ? h : 0), live && h < HQ ? q_w : k_w, cs, eps, w_offset,
                                       threadIdx.x % LANES, live);
  }
}
