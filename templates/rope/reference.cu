#include <cuda_bf16.h>

// One thread per (token, q or k head), in double: the NeoX rotary over the head's first ROT dims
// at the token's position; dims from ROT on and the v heads are never read or written. Each pair
// (i, i + ROT/2) is read whole before either of its elements is written, so in place is right.
extern "C" __global__ void rope_reference(__nv_bfloat16* qkv, const float* cos_sin, const long long* positions, int tokens,
                                          int HQ, int HKV, int D, int ROT, int MAXPOS) {
  const long long job = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int heads = HQ + HKV;
  if (job >= static_cast<long long>(tokens) * heads) return;
  const long long t = job / heads;
  const int h = static_cast<int>(job % heads);
  __nv_bfloat16* x = qkv + t * (heads + HKV) * D + static_cast<long long>(h) * D;
  const float* cs = cos_sin + positions[t] * ROT;
  const int half = ROT / 2;
  for (int i = 0; i < half; ++i) {
    const double a = __bfloat162float(x[i]), b = __bfloat162float(x[i + half]);
    const double c = cs[i], s = cs[half + i];
    x[i] = __float2bfloat16(static_cast<float>(a * c - b * s));
    x[i + half] = __float2bfloat16(static_cast<float>(b * c + a * s));
  }
}
