// paged_sum kernels written by hand, one thread per (sequence, column): a control, and one wrong
// way each to read a paged cache.

// Right: pages through the block table, tokens up to the sequence's length.
extern "C" __global__ void paged_right(float* out, const float* cache, const int* block_table, const int* seq_lens, int batch,
                                       int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  float sum = 0.f;
  for (int i = 0; i < seq_lens[b]; ++i) sum += cache[(static_cast<long long>(block_table[b * MAXP + i / PAGE]) * PAGE + i % PAGE) * D + d];
  out[b * D + d] = sum;
}

// Wrong: assumes sequence b holds pages b*MAXP, b*MAXP+1, ...: contiguous, without the table.
extern "C" __global__ void paged_contiguous(float* out, const float* cache, const int* block_table, const int* seq_lens, int batch,
                                            int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  float sum = 0.f;
  for (int i = 0; i < seq_lens[b]; ++i) sum += cache[(static_cast<long long>(b * MAXP + i / PAGE) * PAGE + i % PAGE) * D + d];
  out[b * D + d] = sum;
}

// Wrong: takes the first page from the table, then the pages after it in the pool.
extern "C" __global__ void paged_first_then_next(float* out, const float* cache, const int* block_table, const int* seq_lens,
                                                 int batch, int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  float sum = 0.f;
  for (int i = 0; i < seq_lens[b]; ++i)
    sum += cache[(static_cast<long long>(block_table[b * MAXP] + i / PAGE) * PAGE + i % PAGE) * D + d];
  out[b * D + d] = sum;
}

// Wrong: sums every slot of the sequence's last page, past its length.
extern "C" __global__ void paged_past_length(float* out, const float* cache, const int* block_table, const int* seq_lens, int batch,
                                             int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  const int pages = (seq_lens[b] + PAGE - 1) / PAGE;
  float sum = 0.f;
  for (int i = 0; i < pages * PAGE; ++i) sum += cache[(static_cast<long long>(block_table[b * MAXP + i / PAGE]) * PAGE + i % PAGE) * D + d];
  out[b * D + d] = sum;
}

// Wrong: leaves a padded row's output unwritten (it must be zero).
extern "C" __global__ void paged_padded_unwritten(float* out, const float* cache, const int* block_table, const int* seq_lens,
                                                  int batch, int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  if (seq_lens[b] == 0) return;
  float sum = 0.f;
  for (int i = 0; i < seq_lens[b]; ++i) sum += cache[(static_cast<long long>(block_table[b * MAXP + i / PAGE]) * PAGE + i % PAGE) * D + d];
  out[b * D + d] = sum;
}
