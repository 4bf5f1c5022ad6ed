#include "gated_row.cuh"

// ROWS rows per block, an aligned group of LANES lanes per row (a warp or part of one): each lane
// issues its loads of x, z and w (VEC-wide, 16 bytes at VEC 8) before the math, the sum of squares
// is an xor shuffle within the group, no shared memory and no barrier. Groups past the last row
// load nothing but still run their warp's shuffles.
template <int LANES, int ROWS, int VEC, int D>
__device__ __forceinline__ void rmsnorm_gated_lane_rows(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* z,
                                                        const __nv_bfloat16* w, int rows, int, float eps) {
  const int lane = threadIdx.x % LANES;
  const long long r = static_cast<long long>(blockIdx.x) * ROWS + threadIdx.x / LANES;
  const bool live = r < rows;
  const long long row = r * D;

  GatedRow<LANES, VEC, D> g;
  Bf16Pack<VEC> wp[GatedRow<LANES, VEC, D>::ITEMS];
  if (live) g.load(x + row, z + row, lane);
  load_gate_weights<LANES, VEC, D>(wp, w, lane);
  const float inv_rms = rsqrtf(g.sum_sq() / D + eps);
  if (live) g.store(out + row, wp, inv_rms, lane);
}
