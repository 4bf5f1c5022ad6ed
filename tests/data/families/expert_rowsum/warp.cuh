// LANES lanes per (token, choice), a shuffle reduction; an expert of another GPU is not read.
template <int LANES, int N>
__device__ __forceinline__ void expert_rowsum_warp(float* out, const float* w, const int* ids, int tokens, int TOPK, int E, int n) {
  const int e = ids[blockIdx.x];
  float sum = 0.f;
  if (e >= 0 && e < E)
    for (int i = threadIdx.x; i < N; i += LANES) sum += w[static_cast<long long>(e) * N + i];
  constexpr unsigned mask = LANES == 32 ? 0xffffffffu : (1u << LANES) - 1;  // the block is LANES threads
  for (int offset = LANES / 2; offset > 0; offset >>= 1) sum += __shfl_xor_sync(mask, sum, offset);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
