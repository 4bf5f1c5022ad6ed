// Races the schedule seed must expose, and a kernel without races that no schedule may change.

// Every thread writes the same shared variable without ordering: the last writer wins.
extern "C" __global__ void last_writer_wins(int* out) {
  __shared__ int winner;
  winner = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = winner;
}

// Each thread reads its neighbour's slot without a barrier in between.
extern "C" __global__ void missing_barrier(float* out, const float* in) {
  __shared__ float slots[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  slots[t] = in[i];
  out[i] = slots[(t + 1) % blockDim.x];
}

// The same with the barrier: correct under every schedule.
extern "C" __global__ void with_barrier(float* out, const float* in) {
  __shared__ float slots[256];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  slots[t] = in[i];
  __syncthreads();
  out[i] = slots[(t + 1) % blockDim.x];
}

// Every warp stages its share of a table in shared memory, then reads entries other warps
// staged, with only a __syncwarp in between: right only if no warp runs ahead of the others.
extern "C" __global__ void stage_without_barrier(float* out, const float* table) {
  __shared__ float staged[256];
  const int t = threadIdx.x;
  staged[t] = table[t];
  __syncwarp();
  out[blockIdx.x * blockDim.x + t] = staged[(t + 96) % blockDim.x];
}
