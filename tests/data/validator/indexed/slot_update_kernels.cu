// slot_update kernels written by hand, one thread per (row, column): a control, and one wrong way
// each to keep a state pool.

// Right.
extern "C" __global__ void slot_right(float* out, float* state, const float* x, const int* state_idx, int B, int D, int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b];
  const float xv = x[b * D + d];
  if (s < 0) {
    out[b * D + d] = 0.f;
    return;
  }
  const float next = 0.5f * state[s * D + d] + xv;
  state[s * D + d] = next;
  out[b * D + d] = next + xv;
}

// Wrong: a padded row (negative slot) updates slot 0.
extern "C" __global__ void slot_padded_touches_state(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                                     int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b] < 0 ? 0 : state_idx[b];
  const float xv = x[b * D + d];
  const float next = 0.5f * state[s * D + d] + xv;
  state[s * D + d] = next;
  out[b * D + d] = state_idx[b] < 0 ? 0.f : next + xv;
}

// Wrong: computes the new state but never stores it.
extern "C" __global__ void slot_no_state_write(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                               int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b];
  const float xv = x[b * D + d];
  out[b * D + d] = s < 0 ? 0.f : 0.5f * state[s * D + d] + 2.f * xv;
}

// Wrong in place: writes out, then reads x again for the state (when out is x, it reads out).
extern "C" __global__ void slot_in_place_wrong(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                               int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b];
  if (s < 0) {
    out[b * D + d] = 0.f;
    return;
  }
  const float old = state[s * D + d];
  out[b * D + d] = 0.5f * old + 2.f * x[b * D + d];
  state[s * D + d] = 0.5f * old + x[b * D + d];
}

// Wrong: right for every row, but also decays the states no row uses this call (engines keep
// other sequences' states there).
extern "C" __global__ void slot_decays_idle_slots(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                                  int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b];
  const float xv = x[b * D + d];
  if (b == 0)
    for (int idle = 0; idle < SLOTS; ++idle) {
      bool used = false;
      for (int r = 0; r < B; ++r) used = used || state_idx[r] == idle;
      if (!used) state[idle * D + d] *= 0.5f;
    }
  if (s < 0) {
    out[b * D + d] = 0.f;
    return;
  }
  const float next = 0.5f * state[s * D + d] + xv;
  state[s * D + d] = next;
  out[b * D + d] = next + xv;
}

// Wrong: every state it writes is 1.2e-6 too large (inside the tolerance element by element, but
// one-sided). In a pool of many slots, few of them addressed, the unbiased-error check must look
// at the addressed states only: over the whole pool the error is diluted by the untouched ones.
extern "C" __global__ void slot_biased_state(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                             int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x, s = state_idx[b];
  const float xv = x[b * D + d];
  if (s < 0) {
    out[b * D + d] = 0.f;
    return;
  }
  const float next = 0.5f * state[s * D + d] + xv;
  state[s * D + d] = next * (1.f + 1.2e-6f);
  out[b * D + d] = next + xv;
}
