#pragma once
#include <mma.h>

#include "bf16_pack.cuh"

// The pieces the tensor-core gemv variants share: a block's chunk of x staged in shared memory,
// a warp's MF x NF tile products over one chunk, and its results stored inside [M, N].
using WmmaAcc = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;

// Where one warp of a block works: the block's 16 * MF rows of x from m0, the warp's own 16 * NF
// rows of w from n0. A warp past N has none (N % (16 * NF) == 0: the same for the whole warp).
template <int WARPS, int MF, int NF>
struct WmmaWarp {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int m0 = blockIdx.y * 16 * MF;
  int n0 = (blockIdx.x * WARPS + warp) * 16 * NF;
  __device__ __forceinline__ bool owns_rows(int N) const { return n0 < N; }
};

// The shared memory of a block whose warps widen their own chunk of quantized w to bf16: the
// chunk of x, each warp's widened chunk (rows LD = KC + 16 apart: 32-byte aligned) and each
// warp's 16 x 16 result tile.
template <int WARPS, int MF, int NF, int KC>
struct alignas(32) WidenedStage {
  static constexpr int LD = KC + 16;
  __nv_bfloat16 xs[16 * MF * LD];
  __nv_bfloat16 ws[WARPS][16 * NF * LD];
  float tile[WARPS][16 * 16];
};

// Where one warp of a block that splits K over its warps works: the block's 16 * MF rows of x
// from m0 and 16 * NF rows of w from n0, shared by all its warps; `whole` when the rows of x are
// all inside M (x's tiles can then come straight from x, load_x_step).
template <int MF, int NF>
struct WmmaSplitWarp {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int m0 = blockIdx.y * 16 * MF;
  int n0 = blockIdx.x * 16 * NF;
  __device__ __forceinline__ bool whole(int M) const { return m0 + 16 * MF <= M; }
};

// The shared memory of a block whose warps split K and widen their own steps of 16 * U columns
// of quantized w to bf16: each warp's slot of x rows (load_x_step), its widened step (rows LD =
// 16 * U + 8 apart: staggered banks, 16-byte aligned rows) and its 16 x 16 float tile.
template <int WARPS, int MF, int NF, int U>
struct alignas(32) WidenedSplitStage {
  static constexpr int LD = 16 * U + 8;
  __nv_bfloat16 x_slots[WARPS][16 * MF * 16];
  __nv_bfloat16 w_slots[WARPS][16 * NF * LD];
  float tiles[WARPS][256];
};

// KC columns of the block's MT rows of x from column k0, rows past M as zeros (so a partial last
// tile needs no other code); LD is the staged row's stride.
template <int MT, int KC, int LD, int THREADS>
__device__ __forceinline__ void stage_x_chunk(__nv_bfloat16* xs, const __nv_bfloat16* x, int m0, int M, int K, int k0) {
  for (int p = threadIdx.x; p < MT * KC / 8; p += THREADS) {
    const int r = p / (KC / 8), c = p % (KC / 8) * 8;
    Bf16Pack<8> v = {};
    if (m0 + r < M) v = *reinterpret_cast<const Bf16Pack<8>*>(x + static_cast<long long>(m0 + r) * K + k0 + c);
    *reinterpret_cast<Bf16Pack<8>*>(xs + r * LD + c) = v;
  }
}

// acc[i][j] += x rows 16i.. (staged, stride LD) times w rows 16j.. over KC columns; w's rows lie
// `ldw` apart (w is [N, K]: a column-major K x N operand).
template <int MF, int NF, int KC, int LD>
__device__ __forceinline__ void mma_chunk(WmmaAcc (&acc)[MF][NF], const __nv_bfloat16* xs, const __nv_bfloat16* w,
                                          long long ldw) {
  using namespace nvcuda;
#pragma unroll 2
  for (int kk = 0; kk < KC; kk += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[MF];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b[NF];
#pragma unroll
    for (int j = 0; j < NF; ++j) wmma::load_matrix_sync(b[j], w + 16 * j * ldw + kk, static_cast<unsigned>(ldw));
#pragma unroll
    for (int i = 0; i < MF; ++i) wmma::load_matrix_sync(a[i], xs + 16 * i * LD + kk, LD);
#pragma unroll
    for (int i = 0; i < MF; ++i)
#pragma unroll
      for (int j = 0; j < NF; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
  }
}

// Each 16 x 16 result goes through the warp's `slot` of shared memory, to be multiplied by
// scale(n), rounded to bf16 and stored only where it is inside [M, N].
template <int MF, int NF, typename Scale>
__device__ __forceinline__ void store_tiles(__nv_bfloat16* out, const WmmaAcc (&acc)[MF][NF], float* slot, int m0, int n0,
                                            int M, int N, Scale scale) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      nvcuda::wmma::store_matrix_sync(slot, acc[i][j], 16, nvcuda::wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int m = m0 + 16 * i + e / 16, n = n0 + 16 * j + e % 16;
        if (m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(scale(n) * slot[e]);
      }
      __syncwarp();
    }
}

// The warp's x fragments for one step of 16 columns from k0: straight from x when the block's
// 16 * MF rows are all inside M, else through the warp's own `slot` of shared memory (16 * MF
// rows of 16), rows past M as zeros, one 16-byte load a lane and tile. Only the warp meets.
using WmmaX = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __nv_bfloat16, nvcuda::wmma::row_major>;
template <int MF>
__device__ __forceinline__ void load_x_step(WmmaX (&a)[MF], __nv_bfloat16* slot, const __nv_bfloat16* x, int m0, int M,
                                            int K, int k0, bool whole) {
  if (whole) {
#pragma unroll
    for (int i = 0; i < MF; ++i)
      nvcuda::wmma::load_matrix_sync(a[i], x + static_cast<long long>(m0 + 16 * i) * K + k0, static_cast<unsigned>(K));
    return;
  }
  const int lane = threadIdx.x % 32;
  __syncwarp();  // the previous step's fragments are loaded
#pragma unroll
  for (int i = 0; i < MF; ++i) {
    const int r = 16 * i + lane / 2, c = lane % 2 * 8;
    Bf16Pack<8> v = {};
    if (m0 + r < M) v = *reinterpret_cast<const Bf16Pack<8>*>(x + static_cast<long long>(m0 + r) * K + k0 + c);
    *reinterpret_cast<Bf16Pack<8>*>(slot + r * 16 + c) = v;
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < MF; ++i) nvcuda::wmma::load_matrix_sync(a[i], slot + 256 * i, 16);
}

// step_sum = the products over one step of 16 * U columns from k0 of the block's x rows and the
// warp's widened w, 16 * NF rows of LD in `w_slot` (quantized weights, widened to bf16 first).
template <int MF, int NF, int U, int LD>
__device__ __forceinline__ void widened_step_sum(WmmaAcc (&step_sum)[MF][NF], const __nv_bfloat16* w_slot, __nv_bfloat16* x_slot,
                                                 const __nv_bfloat16* x, int m0, int M, int K, int k0, bool whole) {
  using namespace nvcuda;
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) wmma::fill_fragment(step_sum[i][j], 0.0f);
#pragma unroll
  for (int u = 0; u < U; ++u) {
    WmmaX a[MF];
    load_x_step<MF>(a, x_slot, x, m0, M, K, k0 + 16 * u, whole);
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
      wmma::load_matrix_sync(b, w_slot + 16 * j * LD + 16 * u, LD);
#pragma unroll
      for (int i = 0; i < MF; ++i) wmma::mma_sync(step_sum[i][j], a[i], b, step_sum[i][j]);
    }
  }
}

// The block's WARPS warps each hold partial sums of the same MF x NF tiles over their share of K:
// put(slot, i, j) writes the warp's tile (i, j) as 16 x 16 floats, row-major, into its slot; the
// slots are added in warp order (the same sum every run), and each result is multiplied by
// scale(n), rounded to bf16 and stored only inside [M, N].
template <int WARPS, int MF, int NF, typename Put, typename Scale>
__device__ __forceinline__ void sum_warp_tiles_by(__nv_bfloat16* out, Put put, float (&tiles)[WARPS][256], int m0, int n0,
                                                  int M, int N, Scale scale) {
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < NF; ++j) {
      __syncthreads();  // the previous tile is read
      put(tiles[threadIdx.x / 32], i, j);
      __syncthreads();
      for (int e = threadIdx.x; e < 256; e += 32 * WARPS) {
        float sum = 0.f;
#pragma unroll
        for (int wi = 0; wi < WARPS; ++wi) sum += tiles[wi][e];
        const int m = m0 + 16 * i + e / 16, n = n0 + 16 * j + e % 16;
        if (m < M) out[static_cast<long long>(m) * N + n] = __float2bfloat16(scale(n) * sum);
      }
    }
}

// The same for sums held as accumulator fragments.
template <int WARPS, int MF, int NF, typename Scale>
__device__ __forceinline__ void sum_warp_tiles(__nv_bfloat16* out, const WmmaAcc (&acc)[MF][NF], float (&tiles)[WARPS][256],
                                               int m0, int n0, int M, int N, Scale scale) {
  sum_warp_tiles_by<WARPS, MF, NF>(
      out, [&](float* slot, int i, int j) { nvcuda::wmma::store_matrix_sync(slot, acc[i][j], 16, nvcuda::wmma::mem_row_major); },
      tiles, m0, n0, M, N, scale);
}
