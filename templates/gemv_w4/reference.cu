#include <cuda_bf16.h>

#include "double_sum.cuh"

// One thread per output (m, n): each weight dequantized in double, (q - z) * scale with q the
// nibble of w_packed, z the row's zero point in the group and scale its bf16 scale; the dot
// product in double, rounded once.
// m is blockIdx.x: the M blocks that read one tile of weight rows run one after another, so
// that a CPU (emu, where this oracle runs beside every check) reads the weights from memory
// once, not M times.
extern "C" __global__ void gemv_w4_reference(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                             const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int K, int G) {
  const int n = blockIdx.y * blockDim.x + threadIdx.x;
  const int m = blockIdx.x;
  if (n >= N || m >= M) return;
  const int groups = K / G;
  const __nv_bfloat16* xr = x + static_cast<long long>(m) * K;
  const unsigned int* wr = reinterpret_cast<const unsigned int*>(w_packed) + static_cast<long long>(n) * (K / 8);
  const unsigned int* zr = reinterpret_cast<const unsigned int*>(w_zeros) + static_cast<long long>(n / 8) * groups;
  const __nv_bfloat16* sr = w_scale + static_cast<long long>(n) * groups;
  DoubleSum sum;
  for (int g = 0; g < groups; ++g) {  // each group's zero point and scale read once, with no division per weight
    const int z = static_cast<int>((zr[g] >> (4 * (n % 8))) & 15u);
    const double scale = static_cast<double>(__bfloat162float(sr[g]));
    sum.add(g * G, (g + 1) * G, [&](int k) {
      const int q = static_cast<int>((wr[k / 8] >> (4 * (k % 8))) & 15u);
      return static_cast<double>(__bfloat162float(xr[k])) * (static_cast<double>(q - z) * scale);
    });
  }
  out[static_cast<long long>(m) * N + n] = __float2bfloat16(static_cast<float>(sum.total()));
}
