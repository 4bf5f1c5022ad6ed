// Votes over full warps, over half-warp masks, and over a partial last warp; and __activemask
// after some lanes have exited.
__device__ unsigned existing_lanes() {
  const unsigned warp_first = threadIdx.x / 32 * 32;
  const unsigned count = blockDim.x - warp_first < 32 ? blockDim.x - warp_first : 32;
  return count == 32 ? 0xffffffffu : (1u << count) - 1;
}

extern "C" __global__ void votes(unsigned* ballot, int* any, int* all, unsigned* half_ballot, unsigned* active,
                                 const int* pred) {
  const int t = threadIdx.x;
  const int p = pred[t];
  const unsigned mask = existing_lanes();
  ballot[t] = __ballot_sync(mask, p);
  any[t] = __any_sync(mask, p);
  all[t] = __all_sync(mask, p);
  const unsigned half = (t % 32 < 16 ? 0x0000ffffu : 0xffff0000u) & mask;
  half_ballot[t] = __ballot_sync(half, p);
  active[t] = 0;
  if (t % 32 >= 24) return;
  active[t] = __activemask();
}
