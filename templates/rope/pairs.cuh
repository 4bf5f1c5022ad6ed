#include "rotate_pack.cuh"

// One thread per VEC pairs of one q or k head, over a flat grid of tokens * (HQ + HKV) heads *
// ROT / (2 * VEC) packs: as many independent loads in flight as there are threads, whatever the
// token count. Each thread reads its position, its cos and sin pack and its two qkv packs.
template <int BLOCK, int VEC, int HQ, int HKV, int D, int ROT>
__device__ __forceinline__ void rope_pairs(__nv_bfloat16* qkv, const float* cos_sin, const long long* positions, int tokens,
                                           int, int, int, int, int) {
  constexpr int HALF = ROT / 2, PACKS = HALF / VEC, HEADS = HQ + HKV;
  const long long job = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
  if (job >= static_cast<long long>(tokens) * HEADS * PACKS) return;
  const int i = static_cast<int>(job % PACKS) * VEC;
  const long long head = job / PACKS, t = head / HEADS;
  __nv_bfloat16* x = qkv + t * ((HEADS + HKV) * D) + (head % HEADS) * D + i;
  const float* cs = cos_sin + positions[t] * ROT + i;
  rotate_pack<VEC, HALF>(x, *reinterpret_cast<const FloatPack<VEC>*>(cs),
                         *reinterpret_cast<const FloatPack<VEC>*>(cs + HALF));
}
