#include <cuda_bf16.h>

// One thread per (row, channel), following the definition in double: the window is the state's
// W - 1 rows, oldest first, then x; out = silu(window . weight[d, :]); the state becomes the
// window's last W - 1 values. A padded row (negative slot) writes out 0 and touches no state.
// Right in place (out is x): the thread reads its x before it writes its out, and no other
// thread touches either.
extern "C" __global__ void causal_conv1d_update_reference(__nv_bfloat16* out, __nv_bfloat16* conv_state, const __nv_bfloat16* x,
                                                          const __nv_bfloat16* weight, const int* state_idx, int B, int D, int W,
                                                          int SLOTS) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y;
  if (d >= D || b >= B) return;
  const long long at = static_cast<long long>(b) * D + d;
  const int s = state_idx[b];
  if (s < 0) {
    out[at] = __float2bfloat16(0.f);
    return;
  }
  __nv_bfloat16* state = conv_state + static_cast<long long>(s) * (W - 1) * D + d;  // row i at state[i * D]
  const __nv_bfloat16 xv = x[at];
  double acc = 0.0;
  for (int i = 0; i < W - 1; ++i)
    acc += static_cast<double>(__bfloat162float(state[static_cast<long long>(i) * D])) * __bfloat162float(weight[static_cast<long long>(d) * W + i]);
  acc += static_cast<double>(__bfloat162float(xv)) * __bfloat162float(weight[static_cast<long long>(d) * W + W - 1]);
  for (int i = 0; i + 1 < W - 1; ++i) state[static_cast<long long>(i) * D] = state[static_cast<long long>(i + 1) * D];
  if (W > 1) state[static_cast<long long>(W - 2) * D] = xv;
  out[at] = __float2bfloat16(static_cast<float>(acc / (1.0 + exp(-acc))));
}
