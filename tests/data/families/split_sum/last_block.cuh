// SPLIT blocks per row each write one partial sum to scratch; the last of them to count in
// (an atomic on the row's zeroed counter) adds the partials and puts the counter back to zero.
template <int SPLIT, int N>
__device__ __forceinline__ void split_sum_last_block(float* out, const float* x, float* partial, int* count, int rows, int n) {
  const int r = blockIdx.y, part = blockIdx.x;
  constexpr int CHUNK = N / SPLIT;
  float sum = 0.f;
  for (int i = threadIdx.x; i < CHUNK; i += 32) sum += x[static_cast<long long>(r) * N + part * CHUNK + i];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x != 0) return;
  partial[r * 8 + part] = sum;
  __threadfence();
  if (atomicAdd(&count[r], 1) != SPLIT - 1) return;
  __threadfence();
  const volatile float* parts = partial + r * 8;  // other blocks' writes: not from a stale L1 line
  float total = 0.f;
  for (int p = 0; p < SPLIT; ++p) total += parts[p];
  out[r] = total;
  count[r] = 0;
}
