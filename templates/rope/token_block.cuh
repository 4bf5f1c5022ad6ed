#include "rotate_pack.cuh"

// One block per token. Thread k keeps the same pack of pairs (k % PACKS) in every head it visits,
// so it reads the token's position and its cos and sin pack once, then rotates that pack in
// heads k / PACKS, k / PACKS + GROUPS, ... of the token's HQ + HKV q and k heads.
template <int THREADS, int VEC, int HQ, int HKV, int D, int ROT>
__device__ __forceinline__ void rope_token_block(__nv_bfloat16* qkv, const float* cos_sin, const long long* positions, int,
                                                 int, int, int, int, int) {
  constexpr int HALF = ROT / 2, PACKS = HALF / VEC, HEADS = HQ + HKV, GROUPS = THREADS / PACKS;
  const long long t = blockIdx.x;
  const int i = static_cast<int>(threadIdx.x % PACKS) * VEC;
  const float* cs = cos_sin + positions[t] * ROT + i;
  const FloatPack<VEC> c = *reinterpret_cast<const FloatPack<VEC>*>(cs);
  const FloatPack<VEC> s = *reinterpret_cast<const FloatPack<VEC>*>(cs + HALF);
  __nv_bfloat16* row = qkv + t * ((HEADS + HKV) * D) + i;
  for (int h = threadIdx.x / PACKS; h < HEADS; h += GROUPS) rotate_pack<VEC, HALF>(row + h * D, c, s);
}
