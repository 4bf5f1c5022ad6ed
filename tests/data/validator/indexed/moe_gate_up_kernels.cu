// moe_gate_up kernels written by hand, one block per slot s = t * TOPK + j and one thread per row
// n of h: a control, and wrong ways to pick the expert, skip another GPU's experts or pair the
// gate with the up rows.
#include <cuda_bf16.h>

namespace {

// silu(w13[e,n] . x[t]) * (w13[e,N+n] . x[t]) in fp32; with `swap`, silu of the up row instead.
__device__ float gate_up_row(const __nv_bfloat16* x, const __nv_bfloat16* w13, int t, int e, int n, int N, int K, bool swap = false) {
  const __nv_bfloat16* xr = x + static_cast<long long>(t) * K;
  const __nv_bfloat16* gate = w13 + (static_cast<long long>(e) * 2 * N + n) * K;
  const __nv_bfloat16* up = gate + static_cast<long long>(N) * K;
  float g = 0.f, u = 0.f;
  for (int k = 0; k < K; ++k) {
    g += __bfloat162float(xr[k]) * __bfloat162float(gate[k]);
    u += __bfloat162float(xr[k]) * __bfloat162float(up[k]);
  }
  if (swap) {
    const float tmp = g;
    g = u;
    u = tmp;
  }
  return g / (1.f + expf(-g)) * u;
}

}  // namespace

// Right.
extern "C" __global__ void gate_up_right(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13, const int* topk_ids,
                                         int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[s];
  const float v = e >= 0 && e < E ? gate_up_row(x, w13, s / TOPK, e, n, N, K) : 0.f;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(v);
}

// Wrong: expert j (the choice's position) instead of topk_ids[t, j].
extern "C" __global__ void gate_up_expert_j(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13, const int* topk_ids,
                                            int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[s];
  const float v = e >= 0 && e < E ? gate_up_row(x, w13, s / TOPK, s % TOPK, n, N, K) : 0.f;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(v);
}

// Wrong: the next token's expert at the same choice (an expert some token chose, so its weights
// are drawn, not NaN).
extern "C" __global__ void gate_up_next_token_id(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                                 const int* topk_ids, int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[(s + TOPK) % (tokens * TOPK)];
  const float v = e >= 0 && e < E ? gate_up_row(x, w13, s / TOPK, e, n, N, K) : 0.f;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(v);
}

// Wrong: takes -1 for the only id of another GPU, and reads the weights of ids from E on (past
// the end of w13).
extern "C" __global__ void gate_up_remote_read(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                               const int* topk_ids, int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[s];
  const float v = e >= 0 ? gate_up_row(x, w13, s / TOPK, e, n, N, K) : 0.f;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(v);
}

// Wrong: skips another GPU's experts but leaves their rows of h unwritten (not zero).
extern "C" __global__ void gate_up_remote_unwritten(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13,
                                                    const int* topk_ids, int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[s];
  if (e < 0 || e >= E) return;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(gate_up_row(x, w13, s / TOPK, e, n, N, K));
}

// Wrong: gate and up swapped (silu of the up row, times the gate row).
extern "C" __global__ void gate_up_swapped(__nv_bfloat16* h, const __nv_bfloat16* x, const __nv_bfloat16* w13, const int* topk_ids,
                                           int tokens, int E, int TOPK, int N, int K) {
  const int s = blockIdx.x, n = threadIdx.x, e = topk_ids[s];
  const float v = e >= 0 && e < E ? gate_up_row(x, w13, s / TOPK, e, n, N, K, true) : 0.f;
  h[static_cast<long long>(s) * N + n] = __float2bfloat16(v);
}
