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
