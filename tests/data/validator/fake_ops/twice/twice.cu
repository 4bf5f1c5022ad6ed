// twice kernels. The driver double computes each by its name as this code does; the *_skips_*
// ones are the attacks on a timing that leaves the last result in the output.
extern "C" __global__ void twice_reference(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * x[i];
}

extern "C" __global__ void twice_honest(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * x[i];
}

// Leaves the output alone when it already holds a number.
extern "C" __global__ void twice_skips_when_filled(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && isnan(out[0])) out[i] = 2 * x[i];
}

// Does only the first half when the output already holds a number.
extern "C" __global__ void twice_skips_half_when_filled(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (isnan(out[0]) || i < n / 2)) out[i] = 2 * x[i];
}
