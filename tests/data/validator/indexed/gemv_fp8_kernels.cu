// gemv_fp8 kernels written by hand: one right, and the block-scale indexing mistakes a port from
// a per-channel kernel makes. One warp per output (n, m), lanes split K, fp32 accumulation.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace {
// Which scale a weight (n, k) takes: the kernels differ only here.
enum class ScaleIndex { right, swapped, per_channel_assumed };

template <ScaleIndex S>
__device__ void fp8_dot(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w, const float* w_scale, int M,
                        int N, int K, int BN, int BK) {
  const int n = blockIdx.x, m = blockIdx.y;
  const int rows = (N + BN - 1) / BN, cols = (K + BK - 1) / BK;
  float sum = 0.f;
  for (int k = threadIdx.x; k < K; k += 32) {
    int s = (n / BN) * cols + k / BK;
    if (S == ScaleIndex::swapped) s = (k / BK) * rows + n / BN;
    if (S == ScaleIndex::per_channel_assumed) s = n * cols + k / BK;  // as if BN were 1
    sum += __bfloat162float(x[static_cast<long long>(m) * K + k]) * static_cast<float>(w[static_cast<long long>(n) * K + k]) * w_scale[s];
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x == 0) out[static_cast<long long>(m) * N + n] = __float2bfloat16(sum);
}
}  // namespace

extern "C" __global__ void fp8_right(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w, const float* w_scale,
                                     int M, int N, int K, int BN, int BK) {
  fp8_dot<ScaleIndex::right>(out, x, w, w_scale, M, N, K, BN, BK);
}
extern "C" __global__ void fp8_scale_swapped(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                             const float* w_scale, int M, int N, int K, int BN, int BK) {
  fp8_dot<ScaleIndex::swapped>(out, x, w, w_scale, M, N, K, BN, BK);
}
extern "C" __global__ void fp8_per_channel_assumed(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                                   const float* w_scale, int M, int N, int K, int BN, int BK) {
  fp8_dot<ScaleIndex::per_channel_assumed>(out, x, w, w_scale, M, N, K, BN, BK);
}
