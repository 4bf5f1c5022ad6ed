// attention_decode kernels written by hand, one thread per (q head, sequence) (launch: grid
// "HQ,batch", block 1), online softmax in fp32: a control, and one wrong way each to read the
// engines' tensors. Each wrong kernel is the control with one reading changed.
#include <cuda_bf16.h>

enum Trap { kRight, kContiguousPages, kMaxLength, kPaddedNan, kDensePages, kDenseQ };

template <Trap T>
__device__ void attend(__nv_bfloat16* out, const __nv_bfloat16* q, const __nv_bfloat16* k_cache, const __nv_bfloat16* v_cache,
                       const int* block_table, const int* seq_lens, int HQ, int HKV, int D, int PAGE, int MAXP, int q_stride,
                       int page_stride, float scale) {
  const int h = blockIdx.x, b = blockIdx.y, kvh = h / (HQ / HKV);
  const int len = T == kMaxLength ? MAXP * PAGE : seq_lens[b];
  const long long stride = T == kDensePages ? static_cast<long long>(PAGE) * HKV * D : page_stride;
  const __nv_bfloat16* qh = q + static_cast<long long>(b) * (T == kDenseQ ? HQ * D : q_stride) + static_cast<long long>(h) * D;
  float m = __int_as_float(0xff800000u), l = 0.f, acc[128];
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  for (int i = 0; i < len; ++i) {
    const long long page = T == kContiguousPages ? static_cast<long long>(b) * MAXP + i / PAGE : block_table[b * MAXP + i / PAGE];
    const long long at = page * stride + (static_cast<long long>(i % PAGE) * HKV + kvh) * D;
    float s = 0.f;
    for (int d = 0; d < D; ++d) s += __bfloat162float(qh[d]) * __bfloat162float(k_cache[at + d]);
    s *= scale;
    const float top = fmaxf(m, s), c = m == __int_as_float(0xff800000u) ? 0.f : expf(m - top), p = expf(s - top);
    l = l * c + p;
    for (int d = 0; d < D; ++d) acc[d] = acc[d] * c + p * __bfloat162float(v_cache[at + d]);
    m = top;
  }
  for (int d = 0; d < D; ++d) {
    const float v = T == kPaddedNan || l > 0.f ? acc[d] / l : 0.f;
    out[(static_cast<long long>(b) * HQ + h) * D + d] = __float2bfloat16(v);
  }
}

#define ATTENTION_ARGS                                                                                                        \
  __nv_bfloat16 *out, const __nv_bfloat16 *q, const __nv_bfloat16 *k_cache, const __nv_bfloat16 *v_cache,                    \
      const int *block_table, const int *seq_lens, float *workspace, int batch, int HQ, int HKV, int D, int PAGE, int MAXP, \
      int q_stride, int page_stride, float scale
#define ATTENTION_CALL out, q, k_cache, v_cache, block_table, seq_lens, HQ, HKV, D, PAGE, MAXP, q_stride, page_stride, scale

// Right: pages through the table, tokens up to the length, 0 for a padded row, both strides.
extern "C" __global__ void attn_right(ATTENTION_ARGS) { attend<kRight>(ATTENTION_CALL); }
// Wrong: page i of sequence b taken to be b * MAXP + i, without the table.
extern "C" __global__ void attn_contiguous_pages(ATTENTION_ARGS) { attend<kContiguousPages>(ATTENTION_CALL); }
// Wrong: every sequence taken to be as long as the longest one may be (ragged lengths ignored).
extern "C" __global__ void attn_max_length(ATTENTION_ARGS) { attend<kMaxLength>(ATTENTION_CALL); }
// Wrong: a padded row (length 0) gets 0 / 0.
extern "C" __global__ void attn_padded_nan(ATTENTION_ARGS) { attend<kPaddedNan>(ATTENTION_CALL); }
// Wrong: pages taken to be PAGE * HKV * D apart (vLLM's layout) whatever page_stride says.
extern "C" __global__ void attn_dense_pages(ATTENTION_ARGS) { attend<kDensePages>(ATTENTION_CALL); }
// Wrong: q rows taken to be HQ * D apart (a contiguous q), not q_stride.
extern "C" __global__ void attn_dense_q(ATTENTION_ARGS) { attend<kDenseQ>(ATTENTION_CALL); }
