// bf16 and half conversions: the bits of every conversion, so the host can compare them with
// core/dtype.hpp bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void conversions(unsigned short* bf_bits, unsigned short* h_bits, float* bf_back, float* h_back,
                                       int* agree, const float* in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float x = in[i];
    const __nv_bfloat16 b = __float2bfloat16(x);
    const __half h = __float2half(x);
    bf_bits[i] = __bfloat16_as_ushort(b);
    h_bits[i] = __half_as_ushort(h);
    bf_back[i] = __bfloat162float(b);
    h_back[i] = __half2float(h);
    // The other spellings of the same conversions must agree with these.
    const __nv_bfloat162 b2 = __floats2bfloat162_rn(x, -x);
    const __half2 h2 = __floats2half2_rn(x, -x);
    const float2 bf2 = __bfloat1622float2(__float22bfloat162_rn(make_float2(x, x)));
    int ok = __bfloat16_as_ushort(__float2bfloat16_rn(x)) == bf_bits[i];
    ok &= __bfloat16_as_ushort(__nv_bfloat16(x)) == bf_bits[i];
    ok &= __bfloat16_as_ushort(__low2bfloat16(b2)) == bf_bits[i];
    ok &= __bfloat16_as_ushort(__high2bfloat16(b2)) == __bfloat16_as_ushort(__float2bfloat16(-x));
    ok &= __half_as_ushort(__float2half_rn(x)) == h_bits[i];
    ok &= __half_as_ushort(__half(x)) == h_bits[i];
    ok &= __half_as_ushort(__low2half(h2)) == h_bits[i];
    ok &= __half_as_ushort(__high2half(h2)) == __half_as_ushort(__float2half(-x));
    ok &= __float_as_uint(bf2.x) == __float_as_uint(bf_back[i]) && __float_as_uint(bf2.y) == __float_as_uint(bf_back[i]);
    ok &= __float_as_uint(__low2float(__bfloat162bfloat162(b))) == __float_as_uint(bf_back[i]);
    ok &= __float_as_uint(__high2float(__half2half2(h))) == __float_as_uint(h_back[i]);
    ok &= __float_as_uint(static_cast<float>(b)) == __float_as_uint(bf_back[i]);
    agree[i] = ok;
  }
}

// bf16 arithmetic: out[k * n + i] holds operation k applied to a[i], b[i], c[i].
extern "C" __global__ void bf16_arith(__nv_bfloat16* out, const __nv_bfloat16* a, const __nv_bfloat16* b,
                                      const __nv_bfloat16* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 x = a[i], y = b[i], z = c[i];
  out[0 * n + i] = x + y;
  out[1 * n + i] = x - y;
  out[2 * n + i] = x * y;
  out[3 * n + i] = x / y;
  out[4 * n + i] = __hfma(x, y, z);
  out[5 * n + i] = __hadd(x, z);
  out[6 * n + i] = __hmul(y, z);
  out[7 * n + i] = __hneg(x);
  out[8 * n + i] = __habs(x);
  out[9 * n + i] = hsqrt(__habs(x));
  out[10 * n + i] = hexp(z);
  out[11 * n + i] = hrsqrt(__habs(y));
  out[12 * n + i] = __hmax(x, y);
  out[13 * n + i] = (x < y) ? __float2bfloat16(1.0f) : __float2bfloat16(0.0f);
  const __nv_bfloat162 p = __halves2bfloat162(x, y), q = __halves2bfloat162(y, z);
  const __nv_bfloat162 r = __hfma2(p, q, __hadd2(p, __hmul2(p, q)));
  out[14 * n + i] = __low2bfloat16(r);
  out[15 * n + i] = __high2bfloat16(r);
  __nv_bfloat16 acc = x;
  acc += y;
  acc *= z;
  out[16 * n + i] = acc;
}

// A few __half operations, against the same float-then-round reference.
extern "C" __global__ void half_arith(__half* out, const __half* a, const __half* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[0 * n + i] = a[i] + b[i];
  out[1 * n + i] = a[i] * b[i];
  out[2 * n + i] = __hfma(a[i], b[i], a[i]);
  const __half2 s = __hadd2(__halves2half2(a[i], b[i]), __halves2half2(b[i], b[i]));
  out[3 * n + i] = __low2half(s);
  out[4 * n + i] = __high2half(s);
}
