// rope kernels written by hand, one thread per (token, head) (launch: grid tokens, block 32): a
// control, and one wrong way each to read the contract (or to break it by a hair). Each is the control with one mistake,
// named by its template arguments.
#include <cuda_bf16.h>

enum Mistake { kNone, kInterleaved, kTokenIndex, kZeroesTail, kRotatesV, kNudgesV };

template <Mistake M>
__device__ void rotate_heads(__nv_bfloat16* qkv, const float* cos_sin, const long long* positions, int HQ, int HKV, int D,
                             int ROT) {
  const int t = blockIdx.x, h = threadIdx.x;
  if (M == kNudgesV && t == 0 && h == 0) {  // one bf16 ulp on one v element, far inside rtol 1/64
    __nv_bfloat16* v = qkv + static_cast<long long>(HQ + HKV) * D + 1;
    *v = __ushort_as_bfloat16(static_cast<unsigned short>(__bfloat16_as_ushort(*v) + 1));
  }
  if (h >= HQ + HKV + (M == kRotatesV ? HKV : 0)) return;
  __nv_bfloat16* x = qkv + static_cast<long long>(t) * (HQ + 2 * HKV) * D + static_cast<long long>(h) * D;
  const long long p = M == kTokenIndex ? t : positions[t];
  const float* cs = cos_sin + p * ROT;
  const int half = ROT / 2;
  for (int i = 0; i < half; ++i) {
    // NeoX pairs i with i + ROT/2; GPT-J (interleaved) pairs 2i with 2i+1.
    const int a_at = M == kInterleaved ? 2 * i : i, b_at = M == kInterleaved ? 2 * i + 1 : i + half;
    const float a = __bfloat162float(x[a_at]), b = __bfloat162float(x[b_at]), c = cs[i], s = cs[half + i];
    x[a_at] = __float2bfloat16(a * c - b * s);
    x[b_at] = __float2bfloat16(b * c + a * s);
  }
  if (M == kZeroesTail)  // a head tile stored whole, the dims it did not rotate left at zero
    for (int i = ROT; i < D; ++i) x[i] = __float2bfloat16(0.f);
}

#define ROPE_ARGS __nv_bfloat16 *qkv, const float *cos_sin, const long long *positions, int tokens, int HQ, int HKV, int D, \
                  int ROT, int MAXPOS
extern "C" __global__ void rope_right(ROPE_ARGS) { rotate_heads<kNone>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
extern "C" __global__ void rope_interleaved(ROPE_ARGS) { rotate_heads<kInterleaved>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
extern "C" __global__ void rope_token_index(ROPE_ARGS) { rotate_heads<kTokenIndex>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
extern "C" __global__ void rope_zeroes_tail(ROPE_ARGS) { rotate_heads<kZeroesTail>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
extern "C" __global__ void rope_rotates_v(ROPE_ARGS) { rotate_heads<kRotatesV>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
extern "C" __global__ void rope_nudges_v(ROPE_ARGS) { rotate_heads<kNudgesV>(qkv, cos_sin, positions, HQ, HKV, D, ROT); }
