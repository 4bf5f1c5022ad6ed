// Kernels that run outside the memory they were given, each only for some arguments, so that the
// same module also runs correctly. Every one is well-formed CUDA.

// Thread `who` writes `out[at]`; the others write their own element.
extern "C" __global__ void write_at(float* out, int n, int who, long long at) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == who) out[at] = 1.0f;
  else if (t < n) out[t] = 2.0f;
}

// Thread `who` reads in[who + shift] (a negative shift reads before the start), the others in[t].
extern "C" __global__ void read_shifted(float* out, const float* in, int n, int who, long long shift) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = in[t == who ? t + shift : t];
}

// Recursion `depth` deep, each level with a local array the compiler must keep on the stack.
__device__ __noinline__ float deep(int depth, float seed) {
  volatile float local[256];
  for (int i = 0; i < 256; ++i) local[i] = seed + i;
  if (depth <= 0) return local[depth & 255];
  return deep(depth - 1, seed + 1.0f) + local[(depth * 7) & 255];
}

extern "C" __global__ void recurse(float* out, int depth) { out[threadIdx.x] = deep(depth, 0.0f); }
