#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "double_sum.cuh"

// One thread per output (m, n): each weight dequantized in double (code times its block's
// scale), the dot product in double, rounded once.
// m is blockIdx.x: the M blocks that read one tile of weight rows run one after another, so
// that a CPU (emu, where this oracle runs beside every check) reads the weights from memory
// once, not M times.
extern "C" __global__ void gemv_fp8_reference(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_fp8_e4m3* w,
                                              const float* w_scale, int M, int N, int K, int BN, int BK) {
  const int n = blockIdx.y * blockDim.x + threadIdx.x;
  const int m = blockIdx.x;
  if (n >= N || m >= M) return;
  const int scale_cols = (K + BK - 1) / BK;
  const __nv_bfloat16* xr = x + static_cast<long long>(m) * K;
  const __nv_fp8_e4m3* wr = w + static_cast<long long>(n) * K;
  const float* sr = w_scale + static_cast<long long>(n / BN) * scale_cols;
  DoubleSum sum;
  for (int b = 0; b < scale_cols; ++b) {  // each block's scale read once, with no division per weight
    const double scale = sr[b];
    sum.add(b * BK, (b + 1) * BK < K ? (b + 1) * BK : K, [&](int k) {
      return static_cast<double>(__bfloat162float(xr[k])) * (static_cast<double>(static_cast<float>(wr[k])) * scale);
    });
  }
  out[static_cast<long long>(m) * N + n] = __float2bfloat16(static_cast<float>(sum.total()));
}
