template <int BLOCK>
__device__ void accumulate_grid(float* state, const float* x, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) state[i] += x[i];
}
