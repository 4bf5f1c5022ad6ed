// gemv_w4 kernels written by hand: one right, and the unpacking mistakes of a port from another
// packing (GPTQ, AWQ, symmetric-only kernels). One warp per output (n, m), lanes split K.
#include <cuda_bf16.h>

namespace {
enum class Unpack { right, nibbles_reversed, zeros_ignored, group_per_word };

template <Unpack U>
__device__ void w4_dot(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed, const __nv_bfloat16* w_scale,
                       const int* w_zeros, int M, int N, int K, int G) {
  const int n = blockIdx.x, m = blockIdx.y;
  const int groups = K / G;
  const auto* words = reinterpret_cast<const unsigned int*>(w_packed) + static_cast<long long>(n) * (K / 8);
  const auto* zeros = reinterpret_cast<const unsigned int*>(w_zeros) + static_cast<long long>(n / 8) * groups;
  float sum = 0.f;
  for (int k = threadIdx.x; k < K; k += 32) {
    const int j = U == Unpack::nibbles_reversed ? 7 - k % 8 : k % 8;
    const int g = U == Unpack::group_per_word ? (k / 8) / G : k / G;
    const float q = static_cast<float>((words[k / 8] >> (4 * j)) & 15u);
    const float z = U == Unpack::zeros_ignored ? 8.f : static_cast<float>((zeros[g] >> (4 * (n % 8))) & 15u);
    const float s = __bfloat162float(w_scale[static_cast<long long>(n) * groups + g]);
    sum += __bfloat162float(x[static_cast<long long>(m) * K + k]) * (q - z) * s;
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x == 0) out[static_cast<long long>(m) * N + n] = __float2bfloat16(sum);
}
}  // namespace

extern "C" __global__ void w4_right(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed, const __nv_bfloat16* w_scale,
                          const int* w_zeros, int M, int N, int K, int G) {
  w4_dot<Unpack::right>(out, x, w_packed, w_scale, w_zeros, M, N, K, G);
}
extern "C" __global__ void w4_nibbles_reversed(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed, const __nv_bfloat16* w_scale,
                          const int* w_zeros, int M, int N, int K, int G) {
  w4_dot<Unpack::nibbles_reversed>(out, x, w_packed, w_scale, w_zeros, M, N, K, G);
}
extern "C" __global__ void w4_zeros_ignored(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed, const __nv_bfloat16* w_scale,
                          const int* w_zeros, int M, int N, int K, int G) {
  w4_dot<Unpack::zeros_ignored>(out, x, w_packed, w_scale, w_zeros, M, N, K, G);
}
extern "C" __global__ void w4_group_per_word(__nv_bfloat16* out, const __nv_bfloat16* x, const int* w_packed, const __nv_bfloat16* w_scale,
                          const int* w_zeros, int M, int N, int K, int G) {
  w4_dot<Unpack::group_per_word>(out, x, w_packed, w_scale, w_zeros, M, N, K, G);
}
