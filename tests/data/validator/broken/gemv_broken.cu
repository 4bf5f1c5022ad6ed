#include <cuda_bf16.h>

// gemv kernels that are wrong, or cheat. One thread per output, launched with
// grid (ceil_div(N, 64), M), block 64.

__device__ float dot(const __nv_bfloat16* x, const __nv_bfloat16* w, int n, int k_end) {
  float acc = 0.f;
  for (int k = 0; k < k_end; ++k) acc += __bfloat162float(x[k]) * __bfloat162float(w[k]);
  return acc;
}

// Stops one short of K.
extern "C" __global__ void gemv_off_by_one(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N,
                                           int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  out[(long long)m * N + n] = __float2bfloat16(dot(x + (long long)m * K, w + (long long)n * K, n, K - 1));
}

// Computes rows of x two at a time and forgets the last one when M is odd.
extern "C" __global__ void gemv_even_rows_only(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M,
                                               int N, int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N || blockIdx.y != 0) return;
  for (int m = 0; m + 1 < M; m += 2) {
    out[(long long)m * N + n] = __float2bfloat16(dot(x + (long long)m * K, w + (long long)n * K, n, K));
    out[(long long)(m + 1) * N + n] = __float2bfloat16(dot(x + (long long)(m + 1) * K, w + (long long)n * K, n, K));
  }
}

// A big local array indexed at run time: it lives on the stack.
extern "C" __global__ void gemv_stack_hog(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N,
                                          int K) {
  float scratch[4096];
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  for (int k = 0; k < K && k < 4096; ++k) scratch[(k * 7 + n) % 4096] = __bfloat162float(x[(long long)m * K + k]);
  float acc = 0.f;
  for (int k = 0; k < K && k < 4096; ++k) acc += scratch[(k * 7 + n) % 4096] * __bfloat162float(w[(long long)n * K + k]);
  out[(long long)m * N + n] = __float2bfloat16(acc);
}

// Reads its output first and returns when it already holds a number: no work while timed.
extern "C" __global__ void gemv_reads_output(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int M, int N,
                                             int K) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (n >= N) return;
  const long long i = (long long)m * N + n;
  if (!__hisnan(out[i])) return;
  out[i] = __float2bfloat16(dot(x + (long long)m * K, w + (long long)n * K, n, K));
}
