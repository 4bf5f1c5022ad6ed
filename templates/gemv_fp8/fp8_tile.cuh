#pragma once
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "bf16_pack.cuh"

// VEC e4m3 codes moved as one aligned load (VEC=16 is 16 bytes).
template <int VEC>
struct alignas(VEC) Fp8Pack {
  __nv_fp8_storage_t v[VEC];
};

// Widens VEC codes to float. DECODE 0: one code at a time through __nv_fp8_e4m3; DECODE 1: two
// at a time through half2, which sm_89 and later convert in one instruction (cvt e4m3x2).
template <int VEC, int DECODE>
__device__ __forceinline__ void widen_fp8(const Fp8Pack<VEC>& p, float (&f)[VEC]) {
  if constexpr (DECODE == 0) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      __nv_fp8_e4m3 q;
      q.__x = p.v[j];
      f[j] = static_cast<float>(q);
    }
  } else {
#pragma unroll
    for (int j = 0; j < VEC; j += 2) {
      const auto two = static_cast<__nv_fp8x2_storage_t>(p.v[j] | (p.v[j + 1] << 8));
      const float2 pair = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(two, __NV_E4M3)));
      f[j] = pair.x;
      f[j + 1] = pair.y;
    }
  }
}

// 16 codes as bf16 at dst (16-byte aligned), for the tensor cores: bf16 holds every e4m3 value
// exactly, so the products are of the codes themselves.
__device__ __forceinline__ void widen_to_bf16(const Fp8Pack<16>& q, __nv_bfloat16* dst) {
  float f[16];
  widen_fp8<16, 1>(q, f);
  Bf16Pack<8> lo, hi;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    lo.v[j] = __float2bfloat16(f[j]);
    hi.v[j] = __float2bfloat16(f[8 + j]);
  }
  *reinterpret_cast<Bf16Pack<8>*>(dst) = lo;
  *reinterpret_cast<Bf16Pack<8>*>(dst + 8) = hi;
}

// The rows one tile reads: ROWS rows of w (and their rows of block scales) from n0, MT rows of
// x from m0, clamped to the last valid row so that every load is in bounds (edge tiles compute a
// duplicate row and do not store it). A pack of VEC codes lies inside one scale block
// (BK % VEC == 0), so its dot product with x is scaled once. Offsets are 64-bit.
template <int ROWS, int MT, int VEC, int DECODE, int K, int BN, int BK>
struct Fp8Tile {
  static constexpr int SCALE_COLS = (K + BK - 1) / BK;
  const Fp8Pack<VEC>* w[ROWS];
  const float* scale[ROWS];
  const Bf16Pack<8>* x[MT];

  __device__ __forceinline__ Fp8Tile(const __nv_bfloat16* xg, const __nv_fp8_e4m3* wg, const float* sg, int m0, int n0, int M,
                                     int N) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int n = n0 + r < N ? n0 + r : N - 1;
      w[r] = reinterpret_cast<const Fp8Pack<VEC>*>(wg + static_cast<long long>(n) * K);
      scale[r] = sg + static_cast<long long>(n / BN) * SCALE_COLS;
    }
#pragma unroll
    for (int i = 0; i < MT; ++i)
      x[i] = reinterpret_cast<const Bf16Pack<8>*>(xg + static_cast<long long>(m0 + i < M ? m0 + i : M - 1) * K);
  }

  // acc[i][r] += scale * (x[m0+i, pack p] . w[n0+r, pack p]): each w pack is loaded and widened
  // once and reused for the MT rows of x.
  __device__ __forceinline__ void accumulate(float (&acc)[MT][ROWS], int p) const {
    float wf[ROWS][VEC];
    float s[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      widen_fp8<VEC, DECODE>(w[r][p], wf[r]);
      s[r] = scale[r][p * VEC / BK];
    }
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      float dot[ROWS] = {};
#pragma unroll
      for (int c = 0; c < VEC / 8; ++c) {
        const Bf16Pack<8> xp = x[i][p * (VEC / 8) + c];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const float xv = __bfloat162float(xp.v[j]);
#pragma unroll
          for (int r = 0; r < ROWS; ++r) dot[r] = fmaf(xv, wf[r][c * 8 + j], dot[r]);
        }
      }
#pragma unroll
      for (int r = 0; r < ROWS; ++r) acc[i][r] = fmaf(s[r], dot[r], acc[i][r]);
    }
  }
};
