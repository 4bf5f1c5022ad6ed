// Kernels for the warp-loops compile (runtime/emu/warp_loops): which ones it rewrites, and what a
// rewritten one must still do.

// Every thread meets the same barriers: a warp sum by shuffles, a block barrier that counts, a
// sum over the warps through shared memory, and a local array indexed at run time that lives
// across all of them. Inputs are small integers, so every sum is exact.
extern "C" __global__ void uniform_barriers(float* out, const float* in, int pick) {
  __shared__ float warp_sums[32];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  float kept[8];
  for (int k = 0; k < 8; ++k) kept[k] = in[i] * static_cast<float>(k + 1);
  float v = kept[0];
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (t % 32 == 0) warp_sums[t / 32] = v;
  const int positive = __syncthreads_count(kept[0] > 0.0f);
  float total = 0.0f;
  for (int w = 0; w < static_cast<int>((blockDim.x + 31) / 32); ++w) total += warp_sums[w];
  out[i] = total + kept[(pick + t) % 8] + static_cast<float>(positive);
}

// Each lane names in its mask only the lane after it: the mask leaves out the caller.
extern "C" __global__ void mask_without_caller(float* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_sync(1u << ((t + 1) % 32), static_cast<float>(t), 0);
}

// Reads the slot of a thread in the next warp with no __syncthreads between the write and the
// read: a race that a drawn warp order shows (shared memory starts poisoned).
extern "C" __global__ void reads_next_warp_unsynced(float* out, const float* in) {
  __shared__ float s[1024];
  const int t = threadIdx.x;
  const float v = in[t];
  s[t] = v + __shfl_xor_sync(0xffffffffu, v, 1);
  out[t] = s[(t + 32) % blockDim.x];
}

// Half the warp meets __syncwarp at one call and half at another, and likewise a shuffle: the
// same intrinsic with the same mask meets as one barrier, wherever it is called.
extern "C" __global__ void two_call_sites(float* out, const float* in) {
  __shared__ float s[32];
  const int lane = threadIdx.x;
  s[lane] = in[lane];
  float v;
  if (lane < 16) {
    __syncwarp();
    v = __shfl_xor_sync(0xffffffffu, s[lane + 16], 1);
  } else {
    __syncwarp();
    v = __shfl_xor_sync(0xffffffffu, s[lane - 16], 1);
  }
  out[lane] = v;
}

// Asks which lanes are with it after a barrier: which lanes arrive together is a property of the
// fiber schedule, so this kernel runs as fibers.
extern "C" __global__ void asks_active_mask(unsigned* out) {
  __syncwarp();
  out[threadIdx.x] = __activemask();
}
