#include "bf16_pack.cuh"
#include "silu.cuh"

// An exact 2-D grid: blockIdx.y is the token, blockIdx.x a slice of BLOCK * VEC * ITEMS columns.
// Each thread issues all ITEMS gate and up loads before any arithmetic, so 2 * ITEMS 16-byte
// loads are in flight per thread; packs of one item are BLOCK apart, so every load is coalesced.
template <int BLOCK, int VEC, int ITEMS, int INTER>
__device__ __forceinline__ void silu_mul_rows(__nv_bfloat16* out, const __nv_bfloat16* in, int tokens, int inter) {
  constexpr int PACKS = INTER / VEC;  // packs per row of out; INTER % VEC == 0
  const int t = blockIdx.y;
  const Bf16Pack<VEC>* gate = reinterpret_cast<const Bf16Pack<VEC>*>(in + static_cast<long long>(t) * 2 * INTER);
  const Bf16Pack<VEC>* up = gate + PACKS;
  Bf16Pack<VEC>* dst = reinterpret_cast<Bf16Pack<VEC>*>(out + static_cast<long long>(t) * INTER);
  const int first = blockIdx.x * BLOCK * ITEMS + threadIdx.x;

  Bf16Pack<VEC> g[ITEMS], u[ITEMS];
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int p = first + it * BLOCK;
    if (p < PACKS) {
      g[it] = gate[p];
      u[it] = up[p];
    }
  }
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int p = first + it * BLOCK;
    if (p < PACKS) {
      Bf16Pack<VEC> o;
#pragma unroll
      for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(silu_times(__bfloat162float(g[it].v[j]), __bfloat162float(u[it].v[j])));
      dst[p] = o;
    }
  }
}
