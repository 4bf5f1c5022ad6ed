#include "gated_row.cuh"

// A grid of at most MAX_BLOCKS blocks (a launch-rule parameter) of ROWS groups of LANES lanes
// strides over the rows: each lane reads its packs of w once and keeps them for every row it
// visits, and loads the next row's x and z before it reduces and stores the current one, so a
// large batch runs as resident waves with loads always in flight. Every lane makes the same
// number of trips (groups without a row load nothing but run the shuffles).
template <int LANES, int ROWS, int VEC, int D>
__device__ __forceinline__ void rmsnorm_gated_row_loop(__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* z,
                                                       const __nv_bfloat16* w, int rows, int, float eps) {
  const int lane = threadIdx.x % LANES;
  const long long first = static_cast<long long>(blockIdx.x) * ROWS + threadIdx.x / LANES;
  const long long stride = static_cast<long long>(gridDim.x) * ROWS;
  const long long trips = (rows + stride - 1) / stride;

  Bf16Pack<VEC> wp[GatedRow<LANES, VEC, D>::ITEMS];
  load_gate_weights<LANES, VEC, D>(wp, w, lane);
  GatedRow<LANES, VEC, D> cur, next;
  if (first < rows) cur.load(x + first * D, z + first * D, lane);
  for (long long k = 0; k < trips; ++k) {
    const long long r = first + k * stride;
    if (r + stride < rows) next.load(x + (r + stride) * D, z + (r + stride) * D, lane);
    const float inv_rms = rsqrtf(cur.sum_sq() / D + eps);
    if (r < rows) cur.store(out + r * D, wp, inv_rms, lane);
    cur = next;
  }
}
