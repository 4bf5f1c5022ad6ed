// Shared memory read before anything wrote it: each block first records what it finds, then
// writes its own marks for the next block to find (if shared memory were not poisoned per block).
template <int N>
__device__ void record_then_mark(unsigned* out, unsigned* cells) {
  const int t = threadIdx.x;
  out[blockIdx.x * N + t] = cells[t];
  __syncthreads();
  cells[t] = blockIdx.x + 1;
  __syncthreads();
}

extern "C" __global__ void static_shared_fresh(unsigned* out) {
  __shared__ unsigned cells[64];
  record_then_mark<64>(out, cells);
}

extern "C" __global__ void dynamic_shared_fresh(unsigned* out) {
  extern __shared__ unsigned dynamic_cells[];
  record_then_mark<64>(out, dynamic_cells);
}
