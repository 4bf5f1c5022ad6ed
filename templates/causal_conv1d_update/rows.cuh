#include "window.cuh"

// One thread per VEC adjacent channels of ROWS consecutive rows (blockIdx.y * ROWS on): the
// weights are read once for all ROWS rows, and every row's slot, state rows and x are loaded
// before any math, so ROWS * W VEC-wide loads are in flight per thread. Rows past B and padded
// rows (negative slot) read no state; padded rows write zeros. In place (out is x) is safe: each
// thread reads its x before it writes its out, and no other thread touches them.
template <int BLOCK, int VEC, int ROWS, int D, int W>
__device__ __forceinline__ void causal_conv1d_update_rows(__nv_bfloat16* out, __nv_bfloat16* conv_state, const __nv_bfloat16* x,
                                                          const __nv_bfloat16* weight, const int* state_idx, int B, int, int, int) {
  using Pack = Bf16Pack<VEC>;
  constexpr int ROW = D / VEC;  // packs per state row; D % VEC == 0
  const int p = blockIdx.x * BLOCK + threadIdx.x;
  const int b0 = blockIdx.y * ROWS;  // rows b0 .. b0 + ROWS - 1
  if (p >= ROW) return;

  int s[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) s[r] = b0 + r < B ? state_idx[b0 + r] : -1;
  Pack win[ROWS][W];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
    if (s[r] >= 0) {
      const Pack* state = reinterpret_cast<const Pack*>(conv_state) + static_cast<long long>(s[r]) * (W - 1) * ROW + p;
#pragma unroll
      for (int i = 0; i < W - 1; ++i) win[r][i] = state[i * ROW];
      win[r][W - 1] = reinterpret_cast<const Pack*>(x)[static_cast<long long>(b0 + r) * ROW + p];
    }
  __nv_bfloat16 w[VEC][W];
  load_weights<VEC, W>(w, weight, p * VEC);

#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    if (b0 + r >= B) break;
    Pack* dst = reinterpret_cast<Pack*>(out) + static_cast<long long>(b0 + r) * ROW + p;
    if (s[r] < 0) {
      *dst = zero_pack<VEC>();
      continue;
    }
    Pack* state = reinterpret_cast<Pack*>(conv_state) + static_cast<long long>(s[r]) * (W - 1) * ROW + p;
    const Pack o = conv_silu<VEC, W>(win[r], w);
#pragma unroll
    for (int i = 0; i < W - 1; ++i) state[i * ROW] = win[r][i + 1];
    *dst = o;
  }
}
