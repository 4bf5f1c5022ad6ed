#include "row_slice.cuh"

// One block per row: warps reduce with shuffles, then across warps through shared memory.
template <int BLOCK, int VEC, int HIDDEN>
__device__ __forceinline__ void rmsnorm_row_block(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  constexpr int WARPS = BLOCK / 32 > 0 ? BLOCK / 32 : 1;
  __shared__ float warp_sums[WARPS];
  __shared__ float inv_rms_shared;

  const long long offset = static_cast<long long>(blockIdx.x) * HIDDEN;
  RowSlice<BLOCK, VEC, HIDDEN> slice;
  const float sum_sq = warp_sum(slice.load(x + offset, threadIdx.x));
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum_sq;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int i = 0; i < WARPS; ++i) total += warp_sums[i];
    inv_rms_shared = rsqrtf(total / HIDDEN + eps);
  }
  __syncthreads();
  slice.store(out + offset, w, threadIdx.x, inv_rms_shared);
}
