// Block-wide sum in static shared memory: a tree of __syncthreads-separated steps. Launched
// with up to 1024 threads per block (blockDim.x a power of two).
extern "C" __global__ void block_sum(float* out, const float* in, int n) {
  __shared__ float partial[1024];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// The reducing barriers: per block, how many flags are set, whether all are, whether any is.
extern "C" __global__ void barrier_votes(int* out, const int* flags) {
  const int flag = flags[blockIdx.x * blockDim.x + threadIdx.x];
  const int count = __syncthreads_count(flag);
  const int all = __syncthreads_and(flag);
  const int any = __syncthreads_or(flag);
  if (threadIdx.x == 0) {
    out[3 * blockIdx.x + 0] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

// Neighbour exchange through shared memory with two barriers: the shape of a typical launch
// (read, sync, exchange, sync, write).
extern "C" __global__ void rotate_pairs(float* out, const float* in) {
  __shared__ float s[1024];
  const int t = threadIdx.x, n = blockDim.x;
  const int i = blockIdx.x * n + t;
  s[t] = in[i];
  __syncthreads();
  const float right = s[(t + 1) % n];
  __syncthreads();
  s[t] = right + s[t];
  out[i] = s[t];
}
