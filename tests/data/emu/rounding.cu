// Fused multiply-adds and conversions from double into 16-bit types, which must round once, as
// the device does: the bits of each result, for the host to compare with exact arithmetic.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// out[i] = bits of __hfma(a[i], b[i], c[i]), and in out[n + i] the same through __hfma2.
extern "C" __global__ void fma_half_bits(unsigned short* out, const unsigned short* a, const unsigned short* b,
                                         const unsigned short* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
  out[i] = __half_as_ushort(__hfma(x, y, z));
  out[n + i] = __half_as_ushort(__high2half(__hfma2(__halves2half2(y, x), __halves2half2(x, y), __halves2half2(x, z))));
}

extern "C" __global__ void fma_bf16_bits(unsigned short* out, const unsigned short* a, const unsigned short* b,
                                         const unsigned short* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 x = __ushort_as_bfloat16(a[i]), y = __ushort_as_bfloat16(b[i]), z = __ushort_as_bfloat16(c[i]);
  out[i] = __bfloat16_as_ushort(__hfma(x, y, z));
  out[n + i] = __bfloat16_as_ushort(
      __high2bfloat16(__hfma2(__halves2bfloat162(y, x), __halves2bfloat162(x, y), __halves2bfloat162(x, z))));
}

// out[i] = bits of __double2half(in[i]); out[n + i] = bits of __double2bfloat16(in[i]).
extern "C" __global__ void from_double_bits(unsigned short* out, const double* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __half_as_ushort(__double2half(in[i]));
  out[n + i] = __bfloat16_as_ushort(__double2bfloat16(in[i]));
}
