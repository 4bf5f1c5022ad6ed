// Kernels with the bugs the emulator must catch. Each is well-formed CUDA; each fails only for
// some launch parameters, so the same module can afterwards run correctly.
#include <assert.h>

// Threads past n leave before the barrier the others wait at.
extern "C" __global__ void exit_before_barrier(float* out, int n) {
  const int t = threadIdx.x;
  if (t >= n) return;
  __syncthreads();
  out[t] = 1.0f;
}

// With split != 0, the low half-warp waits at __syncthreads while the high half waits at a
// full-warp shuffle: neither barrier can complete.
extern "C" __global__ void barrier_mix(float* out, int split) {
  const int t = threadIdx.x;
  float v = static_cast<float>(t);
  if (split && t % 32 < 16) {
    __syncthreads();
  } else {
    v = __shfl_xor_sync(0xffffffffu, v, 1);
    __syncthreads();
  }
  out[t] = v;
}

// Lane `gone` exits, then the rest shuffle with a mask that still names it.
extern "C" __global__ void shuffle_exited_lane(float* out, int gone) {
  const int t = threadIdx.x;
  if (t == gone) return;
  out[t] = __shfl_down_sync(0xffffffffu, static_cast<float>(t), 1);
}

// which == 1: thread 3 of block 1 traps; which == 2: an assert fails there.
extern "C" __global__ void trap_or_assert(int* out, int which) {
  const bool chosen = blockIdx.x == 1 && threadIdx.x == 3;
  if (chosen && which == 1) __trap();
  assert(!(chosen && which == 2));
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
