#include <cuda_bf16.h>

#include "double_sum.cuh"

// One thread per (sequence, q head), in double: one pass over the sequence's tokens keeps the
// largest score so far, the sum of exp(score - largest) and the weighted values, rescaling both
// when a larger score comes (in double the rescaling costs nothing a bf16 output can show); a
// score's dot product runs over four partial sums (double_sum.cuh); each token is looked up
// through the block table. Rows of length 0 give zeros. The workspace is not needed.
extern "C" __global__ void attention_decode_reference(__nv_bfloat16* out, const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                                      const __nv_bfloat16* v_cache, const int* block_table, const int* seq_lens,
                                                      float* workspace, int batch, int HQ, int HKV, int D, int PAGE, int MAXP,
                                                      int q_stride, int page_stride, float scale) {
  constexpr int kMaxD = 512;  // the head dims of real models are 64..256
  const int h = blockIdx.x, b = blockIdx.y;
  const long long o = (static_cast<long long>(b) * HQ + h) * D;
  const int len = seq_lens[b];
  if (D > kMaxD) {
    for (int d = 0; d < D; ++d) out[o + d] = __float2bfloat16(__int_as_float(0x7fc00000));
    return;
  }
  const __nv_bfloat16* qh = q + static_cast<long long>(b) * q_stride + static_cast<long long>(h) * D;
  const int kvh = h / (HQ / HKV);
  double qd[kMaxD], acc[kMaxD] = {};
  for (int d = 0; d < D; ++d) qd[d] = __bfloat162float(qh[d]);
  double top = 0.0, sum = 0.0;
  for (int i = 0; i < len; ++i) {
    const long long page = block_table[static_cast<long long>(b) * MAXP + i / PAGE];
    const long long at = page * page_stride + static_cast<long long>(i % PAGE) * HKV * D + static_cast<long long>(kvh) * D;
    DoubleSum dot;
    dot.add(0, D, [&](int d) { return qd[d] * __bfloat162float(k_cache[at + d]); });
    const double s = dot.total() * scale;
    if (i == 0 || s > top) {
      const double c = i == 0 ? 0.0 : exp(top - s);
      sum *= c;
      for (int d = 0; d < D; ++d) acc[d] *= c;
      top = s;
    }
    const double p = exp(s - top);
    sum += p;
    for (int d = 0; d < D; ++d) acc[d] += p * __bfloat162float(v_cache[at + d]);
  }
  for (int d = 0; d < D; ++d) out[o + d] = __float2bfloat16(len > 0 ? static_cast<float>(acc[d] / sum) : 0.f);
}
