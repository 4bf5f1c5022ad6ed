#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Atomics from every thread of many blocks at once. ints[]: 0 count, 1 max, 2 min, 3 down-count,
// 4 CAS-built count, 5 exchange, 6 atomicInc ring; bits[]: 0 or, 1 and, 2 xor.
extern "C" __global__ void hammer(int* ints, unsigned* bits, float* fsum, double* dsum, unsigned long long* usum,
                                  const int* values, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int v = values[i];
    atomicAdd(&ints[0], 1);
    atomicMax(&ints[1], v);
    atomicMin(&ints[2], v);
    atomicSub(&ints[3], 1);
    int seen = ints[4], prev;
    while ((prev = atomicCAS(&ints[4], seen, seen + 1)) != seen) seen = prev;
    atomicExch(&ints[5], v);
    atomicInc(reinterpret_cast<unsigned*>(&ints[6]), 9u);
    atomicOr(&bits[0], 1u << (v % 32));
    atomicAnd(&bits[1], ~(1u << (v % 31)));
    atomicXor(&bits[2], static_cast<unsigned>(v));
    atomicAdd(fsum, 1.0f);
    atomicAdd(dsum, 0.5);
    atomicAdd(usum, static_cast<unsigned long long>(v));
  }
}

// The other atomics kernels use: unsigned max, min, exchange and CAS; float exchange; and
// atomicAdd on the 16-bit types and their pairs. u[]: 0 max, 1 min, 2 exch, 3 CAS-built count.
extern "C" __global__ void hammer_more(unsigned* u, float* fexch, __half2* h2, __nv_bfloat162* b2, __half* h,
                                       __nv_bfloat16* b, const unsigned* values, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned v = values[i];
    atomicMax(&u[0], v);
    atomicMin(&u[1], v);
    atomicExch(&u[2], v);
    unsigned seen = u[3], prev;
    while ((prev = atomicCAS(&u[3], seen, seen + 1u)) != seen) seen = prev;
    atomicExch(fexch, static_cast<float>(v));
    atomicAdd(h2, __floats2half2_rn(1.0f, 0.5f));
    atomicAdd(b2, __floats2bfloat162_rn(1.0f, 2.0f));
    atomicAdd(h, __float2half(0.25f));
    atomicAdd(b, __float2bfloat16(1.0f));
  }
}
