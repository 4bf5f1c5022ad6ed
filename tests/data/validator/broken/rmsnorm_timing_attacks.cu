#include <cuda_bf16.h>

// rmsnorm kernels written to get past the validator, each in one way its stages must catch: the
// attacks of issue 13 found with `hone check --device emu`. One thread per row, launched with
// grid ceil_div(tokens, 32), block 32.

__device__ float row_inv_rms(const __nv_bfloat16* row, int hidden, float eps) {
  float ss = 0.f;
  for (int h = 0; h < hidden; ++h) {
    const float v = __bfloat162float(row[h]);
    ss += v * v;
  }
  return rsqrtf(ss / hidden + eps);
}

__device__ void normalise_row(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int t, int hidden, float eps,
                              float scale) {
  const __nv_bfloat16* row = x + (long long)t * hidden;
  const float inv = row_inv_rms(row, hidden, eps);
  for (int h = 0; h < hidden; ++h)
    out[(long long)t * hidden + h] = __float2bfloat16(__bfloat162float(row[h]) * inv * __bfloat162float(w[h]) * scale);
}

__device__ bool holds_a_number(__nv_bfloat16 v) { return !__hisnan(v); }

// Reads its output first and returns when the row already holds a number: no work while it is
// timed, when the output holds the previous launch's result.
extern "C" __global__ void rmsnorm_reads_output(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                                int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens || holds_a_number(out[(long long)t * hidden])) return;
  normalise_row(out, x, w, t, hidden, eps, 1.f);
}

// Does every other row only when the output already holds numbers: half the work when timed,
// too much to be caught by the physical floor.
extern "C" __global__ void rmsnorm_half_when_timed(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                   int tokens, int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  if (t % 2 == 1 && holds_a_number(out[(long long)t * hidden]) && holds_a_number(out[0])) return;
  normalise_row(out, x, w, t, hidden, eps, 1.f);
}

// Every output 0.6% too large: each element inside bf16's tolerance, all of one sign.
extern "C" __global__ void rmsnorm_biased(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                          int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  normalise_row(out, x, w, t, hidden, eps, 1.006f);
}

// Ignores its eps argument and uses the value the checks happen to pass.
extern "C" __global__ void rmsnorm_ignores_eps(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens,
                                               int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  normalise_row(out, x, w, t, hidden, 1e-6f, 1.f);
}

// Spins forever at one size of its bucket (7 rows), right at every other.
extern "C" __global__ void rmsnorm_spins_at_seven(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  volatile int spinning = tokens == 7;
  while (spinning) {
  }
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  normalise_row(out, x, w, t, hidden, eps, 1.f);
}

// Control: reads its output too (zeroes it, then adds into it), and always does all the work.
extern "C" __global__ void rmsnorm_accumulates_in_output(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                         int tokens, int hidden, float eps) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const __nv_bfloat16* row = x + (long long)t * hidden;
  const float inv = row_inv_rms(row, hidden, eps);
  for (int h = 0; h < hidden; ++h) out[(long long)t * hidden + h] = __float2bfloat16(0.f);
  for (int h = 0; h < hidden; ++h) {
    const long long i = (long long)t * hidden + h;
    out[i] = __float2bfloat16(__bfloat162float(out[i]) + __bfloat162float(row[h]) * inv * __bfloat162float(w[h]));
  }
}
