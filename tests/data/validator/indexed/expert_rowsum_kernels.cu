// expert_rowsum kernels written by hand, one thread per (token, choice): a control, and wrong
// ways to read experts' weights.

// Right.
extern "C" __global__ void expert_right(float* out, const float* w, const int* ids, int tokens, int TOPK, int E, int N) {
  const int i = blockIdx.x * TOPK + threadIdx.x, e = ids[i];
  float sum = 0.f;
  if (e >= 0 && e < E)
    for (int n = 0; n < N; ++n) sum += w[e * N + n];
  out[i] = sum;
}

// Wrong: reads the expert after the chosen one.
extern "C" __global__ void expert_off_by_one(float* out, const float* w, const int* ids, int tokens, int TOPK, int E, int N) {
  const int i = blockIdx.x * TOPK + threadIdx.x, e = ids[i];
  float sum = 0.f;
  if (e >= 0 && e < E)
    for (int n = 0; n < N; ++n) sum += w[((e + 1) % E) * N + n];
  out[i] = sum;
}

// Wrong: takes -1 for the only id of another GPU, and reads the weights of ids past the last
// expert.
extern "C" __global__ void expert_remote_unchecked(float* out, const float* w, const int* ids, int tokens, int TOPK, int E, int N) {
  const int i = blockIdx.x * TOPK + threadIdx.x, e = ids[i];
  float sum = 0.f;
  if (e >= 0)
    for (int n = 0; n < N; ++n) sum += w[e * N + n];
  out[i] = sum;
}
