// One thread per (sequence, column), in double, following the block table token by token.
extern "C" __global__ void paged_sum_reference(float* out, const float* cache, const int* block_table, const int* seq_lens,
                                               int batch, int PAGE, int MAXP, int D) {
  const int b = blockIdx.x, d = threadIdx.x;
  double sum = 0.0;
  for (int i = 0; i < seq_lens[b]; ++i) {
    const long long page = block_table[static_cast<long long>(b) * MAXP + i / PAGE];
    sum += cache[(page * PAGE + i % PAGE) * D + d];
  }
  out[static_cast<long long>(b) * D + d] = static_cast<float>(sum);
}
