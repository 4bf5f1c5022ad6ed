// One element per thread, summed in fp32 as the reference's double rounds it: the same bits.
template <int THREADS>
__device__ __forceinline__ void rounding_state_elements(float* state, const float* x, int N) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < N) state[i] += x[i];
}
