// e4m3 conversions: the code of every float's conversion and the float of every code, through
// each spelling of cuda_fp8.h, so the host can compare them with core/dtype.hpp bit for bit.
#include <cuda_fp8.h>

extern "C" __global__ void fp8_conversions(unsigned char* codes, float* back, int* agree, const float* in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float x = in[i];
    const __nv_fp8_e4m3 q(x);
    codes[i] = q.__x;
    back[i] = static_cast<float>(q);
    int ok = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3) == q.__x;
    const __nv_fp8x2_e4m3 q2(make_float2(x, -x));
    ok &= (q2.__x & 0xff) == q.__x;
    const float2 f2 = static_cast<float2>(q2);
    ok &= __float_as_uint(f2.x) == __float_as_uint(back[i]);
    const __nv_fp8x4_e4m3 q4(make_float4(1.0f, x, 448.0f, -x));
    ok &= ((q4.__x >> 8) & 0xff) == q.__x && (q4.__x & 0xff) == 0x38 && ((q4.__x >> 16) & 0xff) == 0x7e;
    const float4 f4 = static_cast<float4>(q4);
    ok &= __float_as_uint(f4.y) == __float_as_uint(back[i]) && f4.x == 1.0f && f4.z == 448.0f;
    // Through half, as fast kernels widen pairs of codes; NaN stays NaN.
    const __half2_raw h2 = __nv_cvt_fp8x2_to_halfraw2(q2.__x, __NV_E4M3);
    const float hf = __half2float(__half(__half_raw{h2.x}));
    ok &= (hf != hf && back[i] != back[i]) || __float_as_uint(hf) == __float_as_uint(back[i]);
    agree[i] = ok;
  }
}
