#include "bf16_pack.cuh"
#include "silu.cuh"

// A grid of at most MAX_BLOCKS blocks strides over all tokens * INTER / VEC packs of out, so a
// large batch runs as a few resident waves instead of many short-lived blocks. INTER is a
// compile-time constant, so splitting a flat pack index into (token, column) is a multiply.
template <int BLOCK, int VEC, int INTER>
__device__ __forceinline__ void silu_mul_grid_stride(__nv_bfloat16* out, const __nv_bfloat16* in, int tokens, int inter) {
  constexpr int PACKS = INTER / VEC;  // packs per row of out; INTER % VEC == 0
  const long long total = static_cast<long long>(tokens) * PACKS;
  const long long stride = static_cast<long long>(gridDim.x) * BLOCK;
  for (long long p = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x; p < total; p += stride) {
    const long long t = p / PACKS;
    const int c = static_cast<int>(p - t * PACKS);
    const Bf16Pack<VEC>* gate = reinterpret_cast<const Bf16Pack<VEC>*>(in + t * 2 * INTER);
    const Bf16Pack<VEC> g = gate[c];
    const Bf16Pack<VEC> u = gate[PACKS + c];
    Bf16Pack<VEC> o;
#pragma unroll
    for (int j = 0; j < VEC; ++j) o.v[j] = __float2bfloat16(silu_times(__bfloat162float(g.v[j]), __bfloat162float(u.v[j])));
    reinterpret_cast<Bf16Pack<VEC>*>(out)[p] = o;
  }
}
