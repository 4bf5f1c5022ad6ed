#pragma once
#include "bf16_pack.cuh"
#include "float_pack.cuh"

// The RMSNorm then NeoX rotary of one head of D values held by an aligned group of LANES lanes:
// lane l owns packs p = k * LANES + l of VEC values, kept in registers from the load to the store.
// The rotary partner of pack p < M is p + M (M = ROT / (2 * VEC) packs apart): the same lane's
// pack k + M / LANES when LANES divides M, else lane l ^ M's pack 0 (M divides LANES, so it is a
// power of two and the xor stays in the group). Every lane of the warp calls it (full-mask
// shuffles); a lane with `live` false loads and stores nothing. `cs` is the position's cos/sin row.
template <int LANES, int VEC, int D, int ROT>
__device__ __forceinline__ void head_norm_rope(__nv_bfloat16* x, const __nv_bfloat16* w, const float* cs, float eps,
                                               float w_offset, int lane, bool live) {
  using Pack = Bf16Pack<VEC>;
  constexpr int KS = D / (LANES * VEC), HALF = ROT / 2, M = HALF / VEC;
  Pack* xp = reinterpret_cast<Pack*>(x);
  const Pack* wp = reinterpret_cast<const Pack*>(w);
  float v[KS][VEC];
  float sum_sq = 0.f;
#pragma unroll
  for (int k = 0; k < KS; ++k) {
    const Pack a = live ? xp[k * LANES + lane] : Pack{};
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      v[k][j] = live ? __bfloat162float(a.v[j]) : 0.f;
      sum_sq += v[k][j] * v[k][j];
    }
  }
#pragma unroll
  for (int offset = LANES / 2; offset > 0; offset >>= 1) sum_sq += __shfl_xor_sync(0xffffffffu, sum_sq, offset);
  const float inv_rms = rsqrtf(sum_sq / D + eps);
#pragma unroll
  for (int k = 0; k < KS; ++k) {
    const Pack wv = live ? wp[k * LANES + lane] : Pack{};
#pragma unroll
    for (int j = 0; j < VEC; ++j) v[k][j] *= inv_rms * (__bfloat162float(wv.v[j]) + w_offset);
  }

  float other[KS][VEC];
#pragma unroll
  for (int k = 0; k < KS; ++k)
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      if constexpr (M % LANES == 0) {
        constexpr int KM = M / LANES;
        other[k][j] = v[k < KM ? k + KM : k < 2 * KM ? k - KM : k][j];
      } else {
        other[k][j] = k == 0 ? __shfl_xor_sync(0xffffffffu, v[0][j], M) : 0.f;
      }
    }
#pragma unroll
  for (int k = 0; k < KS; ++k) {
    const int p = k * LANES + lane;
    if (!live) break;
    if (p < 2 * M) {
      const int i = p % M * VEC;
      const FloatPack<VEC> c = *reinterpret_cast<const FloatPack<VEC>*>(cs + i);
      const FloatPack<VEC> s = *reinterpret_cast<const FloatPack<VEC>*>(cs + HALF + i);
      const float sign = p < M ? -1.f : 1.f;
#pragma unroll
      for (int j = 0; j < VEC; ++j) v[k][j] = v[k][j] * c.v[j] + sign * other[k][j] * s.v[j];
    }
    Pack o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(v[k][j]);
    xp[k * LANES + lane] = o;
  }
}

// Where head h (0..HQ-1 the q heads, QH apart; then the k heads, D apart) starts in its row.
template <int HQ, int D, int QH>
__device__ __forceinline__ long long head_offset(int h) {
  return h < HQ ? static_cast<long long>(h) * QH : static_cast<long long>(HQ) * QH + static_cast<long long>(h - HQ) * D;
}
