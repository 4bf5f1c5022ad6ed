// ROWS rows per block, one thread per column of each.
template <int ROWS, int D>
__device__ __forceinline__ void slot_update_rows(float* out, float* state, const float* x, const int* state_idx, int B, int dims,
                                                 int SLOTS) {
  const int b = blockIdx.x * ROWS + threadIdx.y, d = threadIdx.x;
  if (b >= B) return;
  const int s = state_idx[b];
  const long long at = static_cast<long long>(b) * D + d;
  const float xv = x[at];
  if (s < 0) {
    out[at] = 0.f;
    return;
  }
  float* slot = state + static_cast<long long>(s) * D;
  const float next = 0.5f * slot[d] + xv;
  slot[d] = next;
  out[at] = next + xv;
}
