// One thread per (token, choice), in double.
extern "C" __global__ void expert_rowsum_reference(float* out, const float* w, const int* ids, int tokens, int TOPK, int E, int N) {
  const int t = blockIdx.x, j = threadIdx.x;
  const int e = ids[t * TOPK + j];
  double sum = 0.0;
  if (e >= 0 && e < E)
    for (int n = 0; n < N; ++n) sum += w[static_cast<long long>(e) * N + n];
  out[t * TOPK + j] = static_cast<float>(sum);
}
