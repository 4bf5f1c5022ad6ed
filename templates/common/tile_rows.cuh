#pragma once
// The two ways the linear families (gemv, gemv_fp8, gemv_w4) walk K and meet, whatever their
// weights: a Tile knows how to fold pack p of its rows into acc[MT][ROWS] (bf16, e4m3 with block
// scales, packed int4 with zero points); these loops decide who reads which pack and how the
// partial sums become one bf16 per output.

// A group of LANES lanes walks the packs l, l + LANES, ... (each step of the group one contiguous
// segment) and meets with xor shuffles, which every lane of the warp runs; the stores are spread
// over the group's lanes. UNROLL steps of the walk are unrolled: UNROLL * ROWS loads of w in
// flight per lane.
template <int LANES, int ROWS, int MT, int PACKS, int UNROLL = 4, class Tile>
__device__ __forceinline__ void tile_rows_by_lanes(const Tile& tile, __nv_bfloat16* out, int lane, int m0, int n0, int M,
                                                   int N) {
  float acc[MT][ROWS] = {};
#pragma unroll UNROLL
  for (int p = lane; p < PACKS; p += LANES) tile.accumulate(acc, p);

#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int offset = LANES / 2; offset > 0; offset >>= 1) acc[i][r] += __shfl_xor_sync(0xffffffffu, acc[i][r], offset);
      if (lane == (i * ROWS + r) % LANES && m0 + i < M && n0 + r < N)
        out[static_cast<long long>(m0 + i) * N + n0 + r] = __float2bfloat16(acc[i][r]);
    }
}

// The sums of acc over the block's BLOCK threads, one per output of the tile: warps reduce with
// shuffles, then through `partial` (the caller's shared memory, one slot per warp and output);
// thread t < MT * ROWS gets output t (row t / ROWS of x, t % ROWS of w), the others 0.
template <int BLOCK, int ROWS, int MT>
__device__ __forceinline__ float block_sum_rows(float (&acc)[MT][ROWS], float (&partial)[BLOCK / 32][MT * ROWS]) {
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int offset = 16; offset > 0; offset >>= 1) acc[i][r] += __shfl_xor_sync(0xffffffffu, acc[i][r], offset);
      if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32][i * ROWS + r] = acc[i][r];
    }
  __syncthreads();
  float sum = 0.f;
  if (threadIdx.x < MT * ROWS)
#pragma unroll
    for (int wi = 0; wi < BLOCK / 32; ++wi) sum += partial[wi][threadIdx.x];
  return sum;
}

// The whole block of BLOCK threads splits the packs and meets in block_sum_rows. UNROLL as above.
template <int BLOCK, int ROWS, int MT, int PACKS, int UNROLL = 4, class Tile>
__device__ __forceinline__ void tile_rows_by_block(const Tile& tile, __nv_bfloat16* out, float (&partial)[BLOCK / 32][MT * ROWS],
                                                   int m0, int n0, int M, int N) {
  float acc[MT][ROWS] = {};
#pragma unroll UNROLL
  for (int p = threadIdx.x; p < PACKS; p += BLOCK) tile.accumulate(acc, p);
  const float sum = block_sum_rows<BLOCK, ROWS, MT>(acc, partial);
  const int i = threadIdx.x / ROWS, r = threadIdx.x % ROWS;
  if (threadIdx.x < MT * ROWS && m0 + i < M && n0 + r < N) out[static_cast<long long>(m0 + i) * N + n0 + r] = __float2bfloat16(sum);
}
