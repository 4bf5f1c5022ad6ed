// split_sum kernels written by hand (SPLIT = 4 blocks per row, 32 threads each): a control, and
// wrong ways to use scratch.

// Right: partial sums in scratch, the last block of a row adds them and resets the counter.
extern "C" __global__ void split_right(float* out, const float* x, float* partial, int* count, int rows, int N) {
  const int r = blockIdx.y, part = blockIdx.x, chunk = N / 4;
  float sum = 0.f;
  for (int i = threadIdx.x; i < chunk; i += 32) sum += x[r * N + part * chunk + i];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x != 0) return;
  partial[r * 8 + part] = sum;
  __threadfence();
  if (atomicAdd(&count[r], 1) != 3) return;
  __threadfence();
  const volatile float* parts = partial + r * 8;
  out[r] = parts[0] + parts[1] + parts[2] + parts[3];
  count[r] = 0;
}

// Wrong: adds its partial into scratch as if scratch started at zero.
extern "C" __global__ void split_accumulates_garbage(float* out, const float* x, float* partial, int* count, int rows, int N) {
  const int r = blockIdx.y, part = blockIdx.x, chunk = N / 4;
  float sum = 0.f;
  for (int i = threadIdx.x; i < chunk; i += 32) sum += x[r * N + part * chunk + i];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x != 0) return;
  atomicAdd(&partial[r * 8], sum);
  __threadfence();
  if (atomicAdd(&count[r], 1) != 3) return;
  __threadfence();
  out[r] = static_cast<const volatile float*>(partial)[r * 8];
  count[r] = 0;
}

// Wrong: never puts the counter back to zero, so the next call's blocks count from 4.
extern "C" __global__ void split_counter_left(float* out, const float* x, float* partial, int* count, int rows, int N) {
  const int r = blockIdx.y, part = blockIdx.x, chunk = N / 4;
  float sum = 0.f;
  for (int i = threadIdx.x; i < chunk; i += 32) sum += x[r * N + part * chunk + i];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x != 0) return;
  partial[r * 8 + part] = sum;
  __threadfence();
  if (atomicAdd(&count[r], 1) != 3) return;
  __threadfence();
  const volatile float* parts = partial + r * 8;
  out[r] = parts[0] + parts[1] + parts[2] + parts[3];
}
