#include <cuda_bf16.h>

// One thread per token, in double. The order is decided on the logits (exact in bf16; exp is
// increasing, so it is the order of the probabilities): a before b when a's logit is larger, or
// equal with the lower id. The r-th expert is the first in that order among those after the
// (r-1)-th, so nothing is marked and any E works. Rounded once, when written.
__device__ bool moe_topk_before(const __nv_bfloat16* x, int a, int b) {
  const float xa = __bfloat162float(x[a]), xb = __bfloat162float(x[b]);
  return xa > xb || (xa == xb && a < b);
}

extern "C" __global__ void moe_topk_softmax_reference(float* topk_w, int* topk_ids, const __nv_bfloat16* logits, int tokens,
                                                      int E, int TOPK, int renormalize) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* x = logits + static_cast<long long>(t) * E;
  const long long out = static_cast<long long>(t) * TOPK;

  double m = __bfloat162float(x[0]);
  for (int e = 1; e < E; ++e) m = fmax(m, static_cast<double>(__bfloat162float(x[e])));
  double sum = 0.0;
  for (int e = 0; e < E; ++e) sum += exp(static_cast<double>(__bfloat162float(x[e])) - m);

  double chosen_sum = 0.0;
  int prev = -1;
  for (int r = 0; r < TOPK; ++r) {
    int best = -1;
    for (int e = 0; e < E; ++e)
      if ((prev < 0 || moe_topk_before(x, prev, e)) && (best < 0 || moe_topk_before(x, e, best))) best = e;
    topk_ids[out + r] = best;
    chosen_sum += exp(static_cast<double>(__bfloat162float(x[best])) - m) / sum;
    prev = best;
  }
  for (int r = 0; r < TOPK; ++r) {
    const double p = exp(static_cast<double>(__bfloat162float(x[topk_ids[out + r]])) - m) / sum;
    topk_w[out + r] = static_cast<float>(renormalize == 1 ? p / chosen_sum : p);
  }
}
