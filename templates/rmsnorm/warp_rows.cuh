#include "row_slice.cuh"

// One warp per row, WARPS rows per block: no shared memory and no block barrier, which suits
// short rows (per-head q/k norms) where a whole block per row would sit idle.
template <int WARPS, int VEC, int HIDDEN>
__device__ __forceinline__ void rmsnorm_warp_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w,
                                                  int tokens, int hidden, float eps) {
  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * WARPS + threadIdx.x / 32;
  if (t >= tokens) return;  // whole warps leave together: no warp intrinsic sees a missing lane

  const long long offset = static_cast<long long>(t) * HIDDEN;
  RowSlice<32, VEC, HIDDEN> slice;
  const float sum_sq = warp_sum(slice.load(x + offset, lane));
  slice.store(out + offset, w, lane, rsqrtf(sum_sq / HIDDEN + eps));
}
