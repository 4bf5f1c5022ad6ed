#pragma once
#include "bf16_pack.cuh"
#include "silu.cuh"

// ROWS gate rows of expert e from n0 (all below N: the grid is exact), the ROWS up rows N further
// on, and MT rows of x (tokens tok[i]). The rows are one pointer and constant offsets apart, so a
// tile holds 1 + MT pointers. 64-bit offsets: E * 2N * K passes 2^31 (512 experts of 1024 x 2048).
template <int ROWS, int MT, int VEC, int N, int K>
struct GateUpTile {
  static constexpr int PACKS = K / VEC;  // packs per row; K % VEC == 0
  const Bf16Pack<VEC>* gate;             // row n0 of expert e
  const Bf16Pack<VEC>* x[MT];

  __device__ __forceinline__ GateUpTile(const __nv_bfloat16* xg, const __nv_bfloat16* w13, int e, int n0, const int (&tok)[MT])
      : gate(reinterpret_cast<const Bf16Pack<VEC>*>(w13 + (static_cast<long long>(e) * 2 * N + n0) * K)) {
#pragma unroll
    for (int i = 0; i < MT; ++i) x[i] = reinterpret_cast<const Bf16Pack<VEC>*>(xg + static_cast<long long>(tok[i]) * K);
  }

  // g[i][r] += x[i] . gate[r] and u[i][r] += x[i] . up[r] over pack p: each weight pack is loaded
  // once and reused for the MT rows of x (the weights stream, x stays in cache); the packs are
  // widened one element at a time, so only 2 * ROWS + MT widened values are live.
  __device__ __forceinline__ void accumulate(float (&g)[MT][ROWS], float (&u)[MT][ROWS], int p) const {
    Bf16Pack<VEC> gp[ROWS], upk[ROWS], xp[MT];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      gp[r] = gate[r * PACKS + p];
      upk[r] = gate[(N + r) * PACKS + p];
    }
#pragma unroll
    for (int i = 0; i < MT; ++i) xp[i] = x[i][p];
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      float gf[ROWS], uf[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        gf[r] = __bfloat162float(gp[r].v[j]);
        uf[r] = __bfloat162float(upk[r].v[j]);
      }
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const float xv = __bfloat162float(xp[i].v[j]);
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
          g[i][r] = fmaf(xv, gf[r], g[i][r]);
          u[i][r] = fmaf(xv, uf[r], u[i][r]);
        }
      }
    }
  }
};

// A group of LANES lanes folds the tile's packs (lane l: packs l, l + LANES, ..., each step of the
// group one contiguous segment of every row), meets with xor shuffles (every lane of the warp runs
// them) and stores h = silu(g) * u of row n0 + r at dst[i][n0 + r], for the tokens whose dst is not
// null; the stores are spread over the group's lanes.
template <int LANES, int ROWS, int MT, int VEC, int N, int K>
__device__ __forceinline__ void gate_up_by_lanes(const GateUpTile<ROWS, MT, VEC, N, K>& tile, __nv_bfloat16* const (&dst)[MT],
                                                 int lane, int n0) {
  // A constant trip count, unrolled so that about 8 weight packs (2 * ROWS a step) are in flight
  // per lane: at 16 (ROWS 4 unrolled 4 times) ptxas held 128-thread blocks to 64 registers and spilled.
  constexpr int UNROLL = ROWS >= 4 ? 1 : 4 / ROWS;
  float g[MT][ROWS] = {}, u[MT][ROWS] = {};
#pragma unroll UNROLL
  for (int p = lane; p < K / VEC; p += LANES) tile.accumulate(g, u, p);
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int offset = LANES / 2; offset > 0; offset >>= 1) {
        g[i][r] += __shfl_xor_sync(0xffffffffu, g[i][r], offset);
        u[i][r] += __shfl_xor_sync(0xffffffffu, u[i][r], offset);
      }
      if (lane == (i * ROWS + r) % LANES && dst[i]) dst[i][n0 + r] = __float2bfloat16(silu_times(g[i][r], u[i][r]));
    }
}

// The group's ROWS rows of h from n0 for a slot whose expert is another GPU's: zero.
template <int LANES, int ROWS, int N>
__device__ __forceinline__ void gate_up_zero_rows(__nv_bfloat16* dst, int lane, int n0) {
#pragma unroll
  for (int r = lane; r < ROWS; r += LANES) dst[n0 + r] = __float2bfloat16(0.f);
}
