// Kernels for the block scheduler's hand-over between threads (tests/runtime/emu_scheduler_test.cpp).

// Every lane walks `rounds` xor shuffles, each with a value of its own round and lane: a lane
// that runs on to its next shuffle before the others have read this one must not change what
// they read. out[t] is the lane's running sum, in integers so that it is exact.
extern "C" __global__ void shuffle_chain(int* out, int rounds) {
  const int lane = threadIdx.x % 32;
  int sum = 0;
  for (int r = 0; r < rounds; ++r) {
    const int mine = (r + 1) * 1000 + lane;
    sum += __shfl_xor_sync(0xffffffffu, mine, 1 + r % 31);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The two half-warps shuffle among themselves with masks of their own, the low half twice as
// often as the high one, so that the two groups' barriers complete interleaved.
extern "C" __global__ void half_warp_groups(int* out, int rounds) {
  const int lane = threadIdx.x % 32;
  const bool low = lane < 16;
  const unsigned mask = low ? 0x0000ffffu : 0xffff0000u;
  int sum = 0;
  for (int r = 0; r < (low ? 2 * rounds : rounds); ++r) {
    const int mine = (r + 1) * 100 + lane;
    sum += __shfl_down_sync(mask, mine, 1 + r % 7, 16);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Lanes below `split` shuffle with xor, the others with down: the same mask at two intrinsics.
extern "C" __global__ void two_intrinsics(float* out, int split) {
  const int t = threadIdx.x;
  const float v = static_cast<float>(t);
  out[t] = t < split ? __shfl_xor_sync(0xffffffffu, v, 1) : __shfl_down_sync(0xffffffffu, v, 1);
}

// A chain of `rounds` __shfl_down_sync by 1: lane 31 reads its own value every time and never
// waits, so it runs ahead of the lanes that read it by as many shuffles as it is let. out[t] is
// the lane's running sum: exact in integers.
extern "C" __global__ void down_chain(int* out, int rounds) {
  const int lane = threadIdx.x % 32;
  int v = lane, sum = 0;
  for (int r = 0; r < rounds; ++r) {
    v = __shfl_down_sync(0xffffffffu, v, 1) + r;
    sum += v;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The low half-warp reads, after a __shfl_up_sync that gives it its own values, what the high
// half wrote to shared memory before the shuffle. The shuffle orders nothing (the low lanes need
// no one's value); only `sync_warp` (a __syncwarp between) makes the read see the write.
extern "C" __global__ void shuffle_orders_nothing(float* out, int sync_warp) {
  __shared__ float staged[32];
  const int lane = threadIdx.x;
  if (lane >= 16) staged[lane] = static_cast<float>(lane);
  const float v = __shfl_up_sync(0xffffffffu, static_cast<float>(lane), 16);
  if (sync_warp) __syncwarp();
  out[lane] = lane < 16 ? staged[lane + 16] : v;
}

// Lane 0 votes with the whole warp while the others shuffle with it: two intrinsics, one mask.
extern "C" __global__ void vote_against_shuffle(float* out) {
  const int lane = threadIdx.x;
  float v = static_cast<float>(lane);
  if (lane == 0) v = static_cast<float>(__ballot_sync(0xffffffffu, 1));
  else v = __shfl_sync(0xffffffffu, v, 0);
  out[lane] = v;
}

// Every thread holds an object whose destructor marks its slot; the block's last thread traps while
// the others wait at __syncthreads. Tearing the faulted block down unwinds each suspended thread's
// stack, so every destructor runs.
struct SlotMark {
  int* slot;
  __device__ ~SlotMark() { *slot = 1; }
};
extern "C" __global__ void trap_while_others_wait(int* marks) {
  SlotMark mark{marks + threadIdx.x};
  if (threadIdx.x == blockDim.x - 1) __trap();
  __syncthreads();
  marks[threadIdx.x] = 2;
}
