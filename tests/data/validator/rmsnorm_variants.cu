#include <cuda_bf16.h>

// Kernels with rmsnorm's signature for the validator's tests: one right, and one for each way
// of being wrong that a stage must catch. One thread per row, like the reference.

__device__ float row_inv_rms(const __nv_bfloat16* row, int hidden, float eps) {
  float ss = 0.f;
  for (int h = 0; h < hidden; ++h) {
    const float v = __bfloat162float(row[h]);
    ss += v * v;
  }
  return rsqrtf(ss / hidden + eps);
}

// Row t of the first `rows`, for thread t: what a right kernel does.
__device__ void normalise_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int rows, int hidden,
                               float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= rows) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  const float inv = row_inv_rms(row, hidden, eps);
  for (int h = 0; h < hidden; ++h)
    out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv * __bfloat162float(w[h]));
}

extern "C" __global__ void rmsnorm_right(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                         int hidden, float eps) {
  normalise_rows(out, x, w, tokens, hidden, eps);
}

// Forgets the weight: wrong wherever w differs from 1.
extern "C" __global__ void rmsnorm_no_weight(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                             int tokens, int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  const float inv = row_inv_rms(row, hidden, eps);
  for (int h = 0; h < hidden; ++h) out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv);
}

// Skips the last row: its outputs keep the poison.
extern "C" __global__ void rmsnorm_skips_last_row(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  normalise_rows(out, x, w, tokens - 1, hidden, eps);
}

// Right, and slow: thread 0 first waits 250 ms of emu's clock (nanoseconds there). Each launch is
// short, their sum is not: the worker must not count that as silence.
extern "C" __global__ void rmsnorm_right_slowly(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                int tokens, int hidden, float eps) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    while (clock64() - start < 250000000LL) {
    }
  }
  normalise_rows(out, x, w, tokens, hidden, eps);
}

// Writes through a null pointer: the process running it dies.
extern "C" __global__ void rmsnorm_crashes(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                           int hidden, float eps) {
  volatile int* nowhere = nullptr;
  *nowhere = tokens;
}

// Never returns. A loop on a volatile local is not enough: ptxas keeps the local in a register
// and the kernel returned at once on an H200. The sleep is an instruction no compiler removes.
extern "C" __global__ void rmsnorm_hangs(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                         int hidden, float eps) {
  for (;;) __nanosleep(1000);
}

// Thread 0 skips the barrier the others wait at.
extern "C" __global__ void rmsnorm_diverges(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                            int tokens, int hidden, float eps) {
  if (threadIdx.x == 0) return;
  __syncthreads();
}

// The wrong signature: hidden as a float.
extern "C" __global__ void rmsnorm_bad_signature(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                 int tokens, float hidden, float eps) {}
