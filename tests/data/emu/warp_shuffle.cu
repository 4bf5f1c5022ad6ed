// Every shuffle form on every shuffle type. Thread t contributes a value that encodes t, and
// out[form * blockDim.x + t] receives what the shuffle returned (form: 0 idx, 1 up, 2 down, 3 xor).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <class T>
__device__ void all_forms(T* out, T v, int src, int delta, int lane_mask, int width) {
  const unsigned full = 0xffffffffu;
  const int n = blockDim.x, t = threadIdx.x;
  out[0 * n + t] = __shfl_sync(full, v, src, width);
  out[1 * n + t] = __shfl_up_sync(full, v, delta, width);
  out[2 * n + t] = __shfl_down_sync(full, v, delta, width);
  out[3 * n + t] = __shfl_xor_sync(full, v, lane_mask, width);
}

extern "C" __global__ void shuffle_forms(int* oi, unsigned* ou, long long* oll, float* of, double* od, __half* oh,
                                         __nv_bfloat16* ob, __half2* oh2, __nv_bfloat162* ob2, int src, int delta,
                                         int lane_mask, int width) {
  const int t = threadIdx.x;
  all_forms(oi, 1000 + t, src, delta, lane_mask, width);
  all_forms(ou, 3000000000u + t, src, delta, lane_mask, width);
  all_forms(oll, (1LL << 40) + t, src, delta, lane_mask, width);
  all_forms(of, 0.5f * t, src, delta, lane_mask, width);
  all_forms(od, 1e10 + t, src, delta, lane_mask, width);
  all_forms(oh, __float2half(static_cast<float>(t)), src, delta, lane_mask, width);
  all_forms(ob, __float2bfloat16(static_cast<float>(t)), src, delta, lane_mask, width);
  all_forms(oh2, __floats2half2_rn(static_cast<float>(t), -static_cast<float>(t)), src, delta, lane_mask, width);
  all_forms(ob2, __floats2bfloat162_rn(static_cast<float>(t), -static_cast<float>(t)), src, delta, lane_mask, width);
}

// The classic reductions: a full-warp sum with __shfl_down_sync, and sums over segments of 8
// lanes with a butterfly of width 8 (every lane of a segment ends with its segment's sum).
extern "C" __global__ void warp_sums(float* warp_total, float* segment_total, const float* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = in[i];
  float s = v;
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) warp_total[i / 32] = s;
  float b = v;
  for (int m = 4; m > 0; m /= 2) b += __shfl_xor_sync(0xffffffffu, b, m, 8);
  segment_total[i] = b;
}
