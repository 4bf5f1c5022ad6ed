#include <cuda_bf16.h>

// One thread per (sequence, q head), in double, over the sequence's tokens in chunks of 16: the
// chunk's scores first, then one online-softmax step for the chunk (the largest score so far, the
// sum of exp(score - largest) and the weighted values, both rescaled when the chunk brings a
// larger score; in double the rescaling costs nothing a bf16 output can show). The loops run over
// the head dim outside and the chunk's tokens inside, so that the 16 tokens' rows, each looked up
// through the block table, are loaded side by side: a token at a time, a CPU (emu) waited on each
// row's cache misses in turn. A score is a dot product over four partial sums, as double_sum.cuh
// makes it. Rows of length 0 give zeros. The workspace is not needed.
extern "C" __global__ void attention_decode_reference(__nv_bfloat16* out, const __nv_bfloat16* q, const __nv_bfloat16* k_cache,
                                                      const __nv_bfloat16* v_cache, const int* block_table, const int* seq_lens,
                                                      float* workspace, int batch, int HQ, int HKV, int D, int PAGE, int MAXP,
                                                      int q_stride, int page_stride, float scale) {
  constexpr int kMaxD = 512;  // the head dims of real models are 64..256
  constexpr int kChunk = 16;
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
  const int whole = D - D % 4;
  double top = 0.0, sum = 0.0;
  for (int first = 0; first < len; first += kChunk) {
    const int n = min(kChunk, len - first);
    long long at[kChunk];
    double part[kChunk][4] = {}, p[kChunk];
    for (int j = 0; j < n; ++j) {
      const int i = first + j;
      const long long page = block_table[static_cast<long long>(b) * MAXP + i / PAGE];
      at[j] = page * page_stride + static_cast<long long>(i % PAGE) * HKV * D + static_cast<long long>(kvh) * D;
    }
    for (int d = 0; d < whole; d += 4)
      for (int j = 0; j < n; ++j)
#pragma unroll
        for (int u = 0; u < 4; ++u) part[j][u] += qd[d + u] * __bfloat162float(k_cache[at[j] + d + u]);
    for (int d = whole; d < D; ++d)
      for (int j = 0; j < n; ++j) part[j][0] += qd[d] * __bfloat162float(k_cache[at[j] + d]);
    double largest = 0.0;
    for (int j = 0; j < n; ++j) {
      p[j] = ((part[j][0] + part[j][1]) + (part[j][2] + part[j][3])) * scale;
      largest = j == 0 || p[j] > largest ? p[j] : largest;
    }
    if (first == 0 || largest > top) {
      const double c = first == 0 ? 0.0 : exp(top - largest);
      sum *= c;
      for (int d = 0; d < D; ++d) acc[d] *= c;
      top = largest;
    }
    for (int j = 0; j < n; ++j) {
      p[j] = exp(p[j] - top);
      sum += p[j];
    }
    for (int d0 = 0; d0 < D; d0 += 8) {
      const int d1 = min(D, d0 + 8);
      for (int j = 0; j < n; ++j)
        for (int d = d0; d < d1; ++d) acc[d] += p[j] * __bfloat162float(v_cache[at[j] + d]);
    }
  }
  for (int d = 0; d < D; ++d) out[o + d] = __float2bfloat16(len > 0 ? static_cast<float>(acc[d] / sum) : 0.f);
}
