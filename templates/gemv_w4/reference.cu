#include <cuda_bf16.h>

// One thread per output (m, n): each weight dequantized in double, (q - z) * scale with q the
// nibble of w_packed, z the row's zero point in the group and scale its bf16 scale; the dot
// product in double in index order, rounded once.
extern "C" __global__ void gemv_w4_reference(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed,
                                             const __nv_bfloat16* w_scale, const int* w_zeros, int M, int N, int K, int G) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y;
  if (n >= N || m >= M) return;
  const int groups = K / G;
  const __nv_bfloat16* xr = x + static_cast<long long>(m) * K;
  const unsigned int* wr = reinterpret_cast<const unsigned int*>(w_packed) + static_cast<long long>(n) * (K / 8);
  const unsigned int* zr = reinterpret_cast<const unsigned int*>(w_zeros) + static_cast<long long>(n / 8) * groups;
  const __nv_bfloat16* sr = w_scale + static_cast<long long>(n) * groups;
  double sum = 0.0;
  for (int k = 0; k < K; ++k) {
    const int q = static_cast<int>((wr[k / 8] >> (4 * (k % 8))) & 15u);
    const int z = static_cast<int>((zr[k / G] >> (4 * (n % 8))) & 15u);
    const double weight = static_cast<double>(q - z) * static_cast<double>(__bfloat162float(sr[k / G]));
    sum += static_cast<double>(__bfloat162float(xr[k])) * weight;
  }
  out[static_cast<long long>(m) * N + n] = __float2bfloat16(static_cast<float>(sum));
}
