// moe_topk_softmax kernels written by hand, one warp per token (launch: grid tokens, block 32): a
// control, and one wrong way each to read the contract. Each round the lanes scan their strided
// logits for the first in the order after the previous round's choice, and a butterfly of
// (logit, id) pairs gives every lane the warp's first; lane 0 keeps the choices in shared memory
// (TOPK <= 64) and writes the weights.
#include <cuda_bf16.h>

// a before b: the larger logit, or on equal logits the lower id (TIE_HIGH: the higher id, wrong).
template <bool TIE_HIGH>
__device__ __forceinline__ bool before(float xa, int a, float xb, int b) {
  return xa > xb || (xa == xb && (TIE_HIGH ? a > b : a < b));
}

template <bool TIE_HIGH, bool NO_MAX, bool IGNORE_RENORM, bool ASCENDING>
__device__ void topk_warp(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E, int TOPK,
                          int renormalize) {
  __shared__ int ids[64];
  __shared__ float xs[64];
  const int lane = threadIdx.x;
  const __nv_bfloat16* x = logits + static_cast<long long>(blockIdx.x) * E;

  float m = -__int_as_float(0x7f800000);  // -inf
  for (int e = lane; e < E; e += 32) m = fmaxf(m, __bfloat162float(x[e]));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float shift = NO_MAX ? 0.f : m;  // NO_MAX: exp of the raw logits, which overflows past 88
  float sum = 0.f;
  for (int e = lane; e < E; e += 32) sum += expf(__bfloat162float(x[e]) - shift);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);

  int prev = -1;
  float prev_x = 0.f;
  for (int r = 0; r < TOPK; ++r) {
    int best = -1;
    float bx = 0.f;
    for (int e = lane; e < E; e += 32) {
      const float xe = __bfloat162float(x[e]);
      if ((prev < 0 || before<TIE_HIGH>(prev_x, prev, xe, e)) && (best < 0 || before<TIE_HIGH>(xe, e, bx, best))) best = e, bx = xe;
    }
    for (int o = 16; o > 0; o >>= 1) {
      const float ox = __shfl_xor_sync(0xffffffffu, bx, o);
      const int ob = __shfl_xor_sync(0xffffffffu, best, o);
      if (ob >= 0 && (best < 0 || before<TIE_HIGH>(ox, ob, bx, best))) best = ob, bx = ox;
    }
    prev = best, prev_x = bx;
    if (lane == 0) ids[r] = best, xs[r] = bx;
  }
  __syncwarp();
  if (lane != 0) return;
  if (ASCENDING)  // the chosen experts, but in id order instead of by probability
    for (int i = 1; i < TOPK; ++i)
      for (int j = i; j > 0 && ids[j - 1] > ids[j]; --j) {
        const int id = ids[j];
        const float v = xs[j];
        ids[j] = ids[j - 1], xs[j] = xs[j - 1];
        ids[j - 1] = id, xs[j - 1] = v;
      }
  float chosen = 0.f;
  for (int r = 0; r < TOPK; ++r) chosen += expf(xs[r] - shift) / sum;
  const long long out = static_cast<long long>(blockIdx.x) * TOPK;
  for (int r = 0; r < TOPK; ++r) {
    const float p = expf(xs[r] - shift) / sum;
    topk_w[out + r] = renormalize == 1 && !IGNORE_RENORM ? p / chosen : p;
    topk_ids[out + r] = ids[r];
  }
}

// Right.
extern "C" __global__ void topk_right(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E, int TOPK,
                                      int renormalize) {
  topk_warp<false, false, false, false>(topk_w, topk_ids, logits, tokens, E, TOPK, renormalize);
}

// Wrong: the probabilities of the chosen experts, never divided by their sum (renormalize ignored).
extern "C" __global__ void topk_unnormalised(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E,
                                             int TOPK, int renormalize) {
  topk_warp<false, false, true, false>(topk_w, topk_ids, logits, tokens, E, TOPK, renormalize);
}

// Wrong: on equal logits the higher id first (a `>=` scan).
extern "C" __global__ void topk_ties_high_id(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E,
                                             int TOPK, int renormalize) {
  topk_warp<true, false, false, false>(topk_w, topk_ids, logits, tokens, E, TOPK, renormalize);
}

// Wrong: the right experts and weights, written in ascending id order instead of by probability.
extern "C" __global__ void topk_ascending_ids(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E,
                                              int TOPK, int renormalize) {
  topk_warp<false, false, false, true>(topk_w, topk_ids, logits, tokens, E, TOPK, renormalize);
}

// Wrong: softmax without subtracting the max: exp overflows to inf (and inf / inf is nan) once a
// logit passes 88.7, and underflows to 0 / 0 when every logit is below -104.
extern "C" __global__ void topk_no_max_shift(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E,
                                             int TOPK, int renormalize) {
  topk_warp<false, true, false, false>(topk_w, topk_ids, logits, tokens, E, TOPK, renormalize);
}

// Wrong: always renormalises, as if renormalize were 1 (a model whose router does not).
extern "C" __global__ void topk_always_renormalised(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens, int E,
                                                    int TOPK, int renormalize) {
  topk_warp<false, false, false, false>(topk_w, topk_ids, logits, tokens, E, TOPK, 1);
}
