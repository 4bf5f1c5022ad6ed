// Dynamic shared memory (in a function and at namespace scope) and 16-byte vector loads.
#include <cuda_bf16.h>
#include <stdint.h>

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 layout");
static_assert(sizeof(uint4) == 16 && alignof(uint4) == 16, "uint4 layout");
static_assert(alignof(float2) == 8 && alignof(int2) == 8 && alignof(double2) == 16, "vector alignment");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 layout");
static_assert(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4, "bf16 layout");

// Reverses each block's slice through dynamic shared memory, with an int array carved from the
// same buffer after the floats; flags[block] says whether the buffer was 16-byte aligned.
extern "C" __global__ void reverse_block(float* out, int* flags, const float* in) {
  extern __shared__ __align__(16) float tile[];
  int* tags = reinterpret_cast<int*>(&tile[blockDim.x]);
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = in[i];
  tags[t] = i;
  __syncthreads();
  const int r = blockDim.x - 1 - t;
  out[i] = tags[r] == blockIdx.x * blockDim.x + r ? tile[r] : -1.0f;
  if (t == 0) flags[blockIdx.x] = reinterpret_cast<uintptr_t>(tile) % 16 == 0;
}

extern __shared__ float4 shared_quads[];

// The same through a namespace-scope declaration, moving float4s.
extern "C" __global__ void reverse_quads(float4* out, const float4* in) {
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  shared_quads[t] = in[i];
  __syncthreads();
  out[i] = shared_quads[blockDim.x - 1 - t];
}

extern "C" __global__ void scale_float4(float4* out, const float4* in, float s, int n4) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  const float4 v = in[i];
  out[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

// Eight bf16 per 16-byte load, read as bf16 and as bf16 pairs; out[i] is their sum both ways.
extern "C" __global__ void sum_bf16x8(float* out, const __nv_bfloat16* in, int groups) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= groups) return;
  const uint4 v = reinterpret_cast<const uint4*>(in)[i];
  const __nv_bfloat16* h = reinterpret_cast<const __nv_bfloat16*>(&v);
  const __nv_bfloat162* h2 = reinterpret_cast<const __nv_bfloat162*>(&v);
  float s = 0.0f, s2 = 0.0f;
  for (int k = 0; k < 8; ++k) s += __bfloat162float(h[k]);
  for (int k = 0; k < 4; ++k) {
    const float2 f = __bfloat1622float2(h2[k]);
    s2 += f.x + f.y;
  }
  out[2 * i] = s;
  out[2 * i + 1] = s2;
}

// Writes `count` floats of dynamic shared memory: past the launch's smem bytes when count is
// too large.
extern "C" __global__ void fill_shared(float* out, int count) {
  extern __shared__ float buffer[];
  for (int i = threadIdx.x; i < count; i += blockDim.x) buffer[i] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = buffer[count - 1];
}
