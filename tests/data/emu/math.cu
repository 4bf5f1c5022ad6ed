// Math and bit intrinsics. f[k * n + i], u[k * n + i]: result k for input i.
extern "C" __global__ void intrinsics(float* f, unsigned* u, const float* x, const unsigned* bits, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  const unsigned b = bits[i];
  f[0 * n + i] = rsqrtf(fabsf(v) + 1.0f);
  f[1 * n + i] = __expf(v);
  f[2 * n + i] = __logf(fabsf(v) + 1.0f);
  f[3 * n + i] = __sinf(v) + __cosf(v);
  f[4 * n + i] = __fdividef(v, 3.0f);
  f[5 * n + i] = __frcp_rn(v + 10.0f);
  f[6 * n + i] = __fsqrt_rn(fabsf(v));
  f[7 * n + i] = __fmaf_rn(v, 2.0f, 1.0f);
  f[8 * n + i] = __saturatef(v);
  f[9 * n + i] = __int_as_float(__float_as_int(v)) + __uint_as_float(__float_as_uint(v));
  f[10 * n + i] = fmaxf(v, 0.5f) + min(v, -0.5f) + max(v, 0.25f);
  f[11 * n + i] = expf(v) + sqrtf(fabsf(v)) + tanhf(v);
  u[0 * n + i] = __popc(b);
  u[1 * n + i] = __clz(static_cast<int>(b));
  u[2 * n + i] = __ffs(static_cast<int>(b));
  u[3 * n + i] = __brev(b);
  u[4 * n + i] = min(b, 1000u) + max(static_cast<int>(b % 7) - 3, 0);
}
