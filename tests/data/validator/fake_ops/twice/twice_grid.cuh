template <int BLOCK>
__device__ void twice_grid(float* out, const float* x, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = 2 * x[i];
}
