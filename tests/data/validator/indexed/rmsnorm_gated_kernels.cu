// rmsnorm_gated kernels written by hand, one thread per row (launch: grid ceil_div(rows, 32),
// block 32): a control, and one wrong way each to read the contract. Each is the control with one
// mistake, named by its template argument.
#include <cuda_bf16.h>

enum Mistake { kNone, kSigmoidGate, kNoNorm, kGateBeforeNorm, kOnePlusW, kIgnoresEps };

template <Mistake M>
__device__ void gated_row(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* z, const __nv_bfloat16* w, int rows,
                          int D, float eps) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const long long row = static_cast<long long>(r) * D;
  auto gate = [&](int i) {
    const float g = __bfloat162float(z[row + i]), sig = 1.f / (1.f + __expf(-g));
    return M == kSigmoidGate ? sig : g * sig;
  };
  float sum_sq = 0.f;
  for (int i = 0; i < D; ++i) {
    // kGateBeforeNorm: the norm over x * silu(z) (FLA's norm_before_gate = False)
    const float v = __bfloat162float(x[row + i]) * (M == kGateBeforeNorm ? gate(i) : 1.f);
    sum_sq += v * v;
  }
  const float inv_rms = M == kNoNorm ? 1.f : rsqrtf(sum_sq / D + (M == kIgnoresEps ? 0.f : eps));
  for (int i = 0; i < D; ++i) {
    const float wi = __bfloat162float(w[i]) + (M == kOnePlusW ? 1.f : 0.f);
    out[row + i] = __float2bfloat16(__bfloat162float(x[row + i]) * inv_rms * wi * gate(i));
  }
}

#define GATED_ARGS __nv_bfloat16 *out, const __nv_bfloat16 *x, const __nv_bfloat16 *z, const __nv_bfloat16 *w, int rows, int D, float eps
#define GATED_CALL(m) gated_row<m>(out, x, z, w, rows, D, eps)
extern "C" __global__ void gated_right(GATED_ARGS) { GATED_CALL(kNone); }
extern "C" __global__ void gated_sigmoid_gate(GATED_ARGS) { GATED_CALL(kSigmoidGate); }
extern "C" __global__ void gated_no_norm(GATED_ARGS) { GATED_CALL(kNoNorm); }
extern "C" __global__ void gated_gate_before_norm(GATED_ARGS) { GATED_CALL(kGateBeforeNorm); }
extern "C" __global__ void gated_one_plus_w(GATED_ARGS) { GATED_CALL(kOnePlusW); }
extern "C" __global__ void gated_ignores_eps(GATED_ARGS) { GATED_CALL(kIgnoresEps); }
