// Records, for every thread of a 3-D grid of 3-D blocks, its built-in indices and sizes, and the
// linear id of lane 0 of its warp (warps are 32 consecutive linear ids, x fastest).
extern "C" __global__ void record_indices(int* out) {
  const int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const int linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  int* o = out + 13 * (block * threads + linear);
  o[0] = threadIdx.x;
  o[1] = threadIdx.y;
  o[2] = threadIdx.z;
  o[3] = blockIdx.x;
  o[4] = blockIdx.y;
  o[5] = blockIdx.z;
  o[6] = blockDim.x;
  o[7] = blockDim.y;
  o[8] = blockDim.z;
  o[9] = gridDim.x;
  o[10] = gridDim.y;
  o[11] = gridDim.z;
  o[12] = __shfl_sync(0xffffffffu, linear, 0);
}
