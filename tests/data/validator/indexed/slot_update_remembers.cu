// A slot_update kernel (one thread per row and column) wrong across calls only: it remembers each
// row's slot from its first call, in device memory that outlives the launch (so it is a trusted
// template's bug: the source policy refuses such variables in untrusted kernels), and keeps using
// it when the engine moves the row to another slot.
__device__ int remembered_slot[256];
__device__ int remembered[256];

extern "C" __global__ void slot_remembers_slots(float* out, float* state, const float* x, const int* state_idx, int B, int D,
                                                int SLOTS) {
  const int b = blockIdx.x, d = threadIdx.x;
  __syncthreads();
  if (d == 0 && !remembered[b]) {
    remembered_slot[b] = state_idx[b];
    remembered[b] = 1;
  }
  __syncthreads();
  const int s = remembered_slot[b];
  const float xv = x[b * D + d];
  if (s < 0) {
    out[b * D + d] = 0.f;
    return;
  }
  const float next = 0.5f * state[s * D + d] + xv;
  state[s * D + d] = next;
  out[b * D + d] = next + xv;
}
