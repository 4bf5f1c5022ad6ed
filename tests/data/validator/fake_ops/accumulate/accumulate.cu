// accumulate kernels. The driver double computes each by its name as this code does.
extern "C" __global__ void accumulate_reference(float* state, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] += x[i];
}

extern "C" __global__ void accumulate_honest(float* state, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) state[i] += x[i];
}
