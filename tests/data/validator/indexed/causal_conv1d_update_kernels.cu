// causal_conv1d_update kernels written by hand, one thread per (row, channel) (launch: grid
// ceil_div(D, 64), B; block 64): a control, and one wrong way each to keep the conv state pool.
// Each is the control with one mistake, named by its template argument.
#include <cuda_bf16.h>

enum Mistake { kNone, kNoStateUpdate, kRowAsSlot, kPaddedSlotZero, kNewestFirst, kWrongInPlace };

template <Mistake M>
__device__ void conv_channel(__nv_bfloat16* out, __nv_bfloat16* conv_state, const __nv_bfloat16* x, const __nv_bfloat16* weight,
                             const int* state_idx, int B, int D, int W) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x, b = blockIdx.y;
  if (d >= D || b >= B) return;
  const long long at = static_cast<long long>(b) * D + d;
  int s = state_idx[b];
  if (M == kRowAsSlot && s >= 0) s = b;  // the row's index for its slot
  if (s < 0 && M != kPaddedSlotZero) {
    out[at] = __float2bfloat16(0.f);
    return;
  }
  const bool padded = s < 0;
  if (padded) s = 0;  // kPaddedSlotZero: a padded row runs on slot 0 (its out is still 0)
  __nv_bfloat16* state = conv_state + static_cast<long long>(s) * (W - 1) * D + d;
  float win[16];
  for (int i = 0; i < W - 1; ++i) win[i] = __bfloat162float(state[static_cast<long long>(i) * D]);
  if (M == kNewestFirst)  // reads the state as newest first, and keeps it so
    for (int i = 0; i < W - 1; ++i) win[i] = __bfloat162float(state[static_cast<long long>(W - 2 - i) * D]);
  win[W - 1] = __bfloat162float(x[at]);
  float acc = 0.f;
  for (int i = 0; i < W; ++i) acc += win[i] * __bfloat162float(weight[static_cast<long long>(d) * W + i]);
  const float o = acc / (1.f + __expf(-acc));
  if (M == kWrongInPlace) {  // out first, then x read again for the state: out's value when out is x
    out[at] = __float2bfloat16(o);
    win[W - 1] = __bfloat162float(x[at]);
  }
  if (M != kNoStateUpdate)
    for (int i = 0; i < W - 1; ++i) {
      const int row = M == kNewestFirst ? W - 2 - i : i;
      state[static_cast<long long>(row) * D] = __float2bfloat16(win[i + 1]);
    }
  out[at] = __float2bfloat16(padded ? 0.f : o);
}

#define CONV_ARGS __nv_bfloat16 *out, __nv_bfloat16 *conv_state, const __nv_bfloat16 *x, const __nv_bfloat16 *weight, \
                  const int *state_idx, int B, int D, int W, int SLOTS
#define CONV_CALL(m) conv_channel<m>(out, conv_state, x, weight, state_idx, B, D, W)
extern "C" __global__ void conv_right(CONV_ARGS) { CONV_CALL(kNone); }
extern "C" __global__ void conv_no_state_update(CONV_ARGS) { CONV_CALL(kNoStateUpdate); }
extern "C" __global__ void conv_row_as_slot(CONV_ARGS) { CONV_CALL(kRowAsSlot); }
extern "C" __global__ void conv_padded_slot_zero(CONV_ARGS) { CONV_CALL(kPaddedSlotZero); }
extern "C" __global__ void conv_newest_first(CONV_ARGS) { CONV_CALL(kNewestFirst); }
extern "C" __global__ void conv_wrong_in_place(CONV_ARGS) { CONV_CALL(kWrongInPlace); }
