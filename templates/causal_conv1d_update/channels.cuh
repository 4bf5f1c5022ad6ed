#include "window.cuh"

// One thread per VEC adjacent channels of one row (blockIdx.y): its W - 1 state rows and x are
// one VEC-wide load each (16 bytes at VEC 8), all issued before the math, its weights VEC * W
// contiguous values; the window stays in registers, and the state is written back shifted by
// one row. A padded row (negative slot) writes zeros and reads no state. In place (out is x) is
// safe: each thread reads its x before it writes its out, and no other thread touches them.
template <int BLOCK, int VEC, int D, int W>
__device__ __forceinline__ void causal_conv1d_update_channels(__nv_bfloat16* out, __nv_bfloat16* conv_state, const __nv_bfloat16* x,
                                                              const __nv_bfloat16* weight, const int* state_idx, int B, int, int,
                                                              int) {
  using Pack = Bf16Pack<VEC>;
  constexpr int ROW = D / VEC;  // packs per state row; D % VEC == 0
  const int p = blockIdx.x * BLOCK + threadIdx.x;
  const int b = blockIdx.y;
  if (p >= ROW) return;
  const long long at = static_cast<long long>(b) * ROW + p;
  const int s = state_idx[b];
  if (s < 0) {
    reinterpret_cast<Pack*>(out)[at] = zero_pack<VEC>();
    return;
  }
  Pack* state = reinterpret_cast<Pack*>(conv_state) + static_cast<long long>(s) * (W - 1) * ROW + p;

  Pack win[W];
#pragma unroll
  for (int i = 0; i < W - 1; ++i) win[i] = state[i * ROW];
  win[W - 1] = reinterpret_cast<const Pack*>(x)[at];
  __nv_bfloat16 w[VEC][W];
  load_weights<VEC, W>(w, weight, p * VEC);

  const Pack o = conv_silu<VEC, W>(win, w);
#pragma unroll
  for (int i = 0; i < W - 1; ++i) state[i * ROW] = win[i + 1];
  reinterpret_cast<Pack*>(out)[at] = o;
}
