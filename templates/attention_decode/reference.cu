#include <cuda_bf16.h>

// One thread per (sequence, q head), in double: a first pass over the sequence's tokens finds the
// largest score, a second sums exp(score - max) and the weighted values; each token is looked up
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
  auto token = [&](int i) {
    const long long page = block_table[static_cast<long long>(b) * MAXP + i / PAGE];
    return page * page_stride + static_cast<long long>(i % PAGE) * HKV * D + static_cast<long long>(kvh) * D;
  };
  auto score = [&](int i) {
    const long long at = token(i);
    double s = 0.0;
    for (int d = 0; d < D; ++d) s += static_cast<double>(__bfloat162float(qh[d])) * __bfloat162float(k_cache[at + d]);
    return s * scale;
  };

  double top = len > 0 ? score(0) : 0.0;
  for (int i = 1; i < len; ++i) top = fmax(top, score(i));
  double sum = 0.0, acc[kMaxD] = {};
  for (int i = 0; i < len; ++i) {
    const double p = exp(score(i) - top);
    sum += p;
    const long long at = token(i);
    for (int d = 0; d < D; ++d) acc[d] += p * __bfloat162float(v_cache[at + d]);
  }
  for (int d = 0; d < D; ++d) out[o + d] = __float2bfloat16(len > 0 ? static_cast<float>(acc[d] / sum) : 0.f);
}
