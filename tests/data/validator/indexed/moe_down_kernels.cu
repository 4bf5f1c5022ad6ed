// moe_down kernels written by hand, one thread per (token t = blockIdx.x, output row k; K rows
// over blockIdx.y and the block): a control, and wrong ways to pick the experts, skip another
// GPU's, weight and sum their terms.
#include <cuda_bf16.h>

namespace {

// w2[e, k, :] . h[s, :] in fp32.
__device__ float down_term(const __nv_bfloat16* h, const __nv_bfloat16* w2, int s, int e, int k, int N, int K) {
  const __nv_bfloat16* hr = h + static_cast<long long>(s) * N;
  const __nv_bfloat16* wr = w2 + (static_cast<long long>(e) * K + k) * N;
  float dot = 0.f;
  for (int n = 0; n < N; ++n) dot += __bfloat162float(hr[n]) * __bfloat162float(wr[n]);
  return dot;
}

}  // namespace

// Right.
extern "C" __global__ void down_right(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2, const int* topk_ids,
                                      const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[s];
    if (e >= 0 && e < E) sum += topk_w[s] * down_term(h, w2, s, e, k, N, K);
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}

// Wrong: expert j (the choice's position) instead of topk_ids[t, j].
extern "C" __global__ void down_expert_j(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2, const int* topk_ids,
                                         const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[s];
    if (e >= 0 && e < E) sum += topk_w[s] * down_term(h, w2, s, j, k, N, K);
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}

// Wrong: the next token's expert at the same choice (chosen by some token, so drawn, not NaN).
extern "C" __global__ void down_next_token_id(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2,
                                              const int* topk_ids, const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[(s + TOPK) % (tokens * TOPK)];
    if (e >= 0 && e < E) sum += topk_w[s] * down_term(h, w2, s, e, k, N, K);
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}

// Wrong: takes -1 for the only id of another GPU, and adds the terms of ids from E on (read past
// the end of w2).
extern "C" __global__ void down_remote_read(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2, const int* topk_ids,
                                            const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[s];
    if (e >= 0) sum += topk_w[s] * down_term(h, w2, s, e, k, N, K);
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}

// Wrong: the routing weights ignored (every expert's term counted once).
extern "C" __global__ void down_ignores_weights(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2,
                                                const int* topk_ids, const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[s];
    if (e >= 0 && e < E) sum += down_term(h, w2, s, e, k, N, K);
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}

// Wrong: each expert's weighted term rounded to bf16 before the sum (as a kernel that writes
// every expert's output and adds them up afterwards does), not rounded once.
extern "C" __global__ void down_rounds_terms(__nv_bfloat16* out, const __nv_bfloat16* h, const __nv_bfloat16* w2, const int* topk_ids,
                                             const float* topk_w, int tokens, int E, int TOPK, int N, int K) {
  const int t = blockIdx.x, k = blockIdx.y * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int j = 0; j < TOPK; ++j) {
    const int s = t * TOPK + j, e = topk_ids[s];
    if (e >= 0 && e < E) sum += __bfloat162float(__float2bfloat16(topk_w[s] * down_term(h, w2, s, e, k, N, K)));
  }
  out[static_cast<long long>(t) * K + k] = __float2bfloat16(sum);
}
