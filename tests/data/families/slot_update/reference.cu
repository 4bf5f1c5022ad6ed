// One thread per (row, column). x is read before out is written, so it is right in place too.
extern "C" __global__ void slot_update_reference(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                                 int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x;
  const int s = state_idx[b];
  const float xv = x[static_cast<long long>(b) * D + d];
  if (s < 0) {
    out[static_cast<long long>(b) * D + d] = 0.f;
    return;
  }
  const float next = 0.5f * state[static_cast<long long>(s) * D + d] + xv;
  state[static_cast<long long>(s) * D + d] = next;
  out[static_cast<long long>(b) * D + d] = next + xv;
}
