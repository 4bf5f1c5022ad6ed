// A block per sequence and column slice; the loop walks the sequence's pages through the table.
template <int SPLIT, int PAGE, int D>
__device__ __forceinline__ void paged_sum_pages(float* out, const float* cache, const int* block_table, const int* seq_lens,
                                                int batch, int page_size, int MAXP, int dims) {
  const int b = blockIdx.x, d = blockIdx.y * (D / SPLIT) + threadIdx.x;
  const int len = seq_lens[b];
  float sum = 0.f;
  for (int p = 0; p * PAGE < len; ++p) {
    const long long page = block_table[static_cast<long long>(b) * MAXP + p];
    const int slots = len - p * PAGE < PAGE ? len - p * PAGE : PAGE;
    for (int s = 0; s < slots; ++s) sum += cache[(page * PAGE + s) * D + d];
  }
  out[static_cast<long long>(b) * D + d] = sum;
}
