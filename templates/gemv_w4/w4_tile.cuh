#pragma once
#include <cuda_bf16.h>

#include "bf16_pack.cuh"

// WORDS packed words (8 weights each) moved as one aligned load (WORDS=4 is 16 bytes).
template <int WORDS>
struct alignas(4 * WORDS) Int4Pack {
  unsigned int v[WORDS];
};

// The bf16 pair (128 + q[j], 128 + q[j + 4]) of one word, with no conversion: nibbles j and j + 4
// masked into the low mantissa bits of a pair of 128.0s (0x4300).
__device__ __forceinline__ __nv_bfloat162 biased_pair(unsigned int word, int j) {
  const unsigned int two = ((word >> (4 * j)) & 0x000f000fu) | 0x43004300u;
  __nv_bfloat162_raw raw;
  raw.x = static_cast<unsigned short>(two & 0xffffu);
  raw.y = static_cast<unsigned short>(two >> 16);
  return __nv_bfloat162(raw);
}

// The 8 codes q of one word as floats, q[j] from bits 4j..4j+3. UNPACK 0: shift, mask and an
// int-to-float conversion per code. UNPACK 1: two codes at a time with no conversion, the biased
// pair widened and offset by 128.
template <int UNPACK>
__device__ __forceinline__ void unpack_word(unsigned int word, float* q) {
  if constexpr (UNPACK == 0) {
#pragma unroll
    for (int j = 0; j < 8; ++j) q[j] = static_cast<float>((word >> (4 * j)) & 15u);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = __bfloat1622float2(biased_pair(word, j));
      q[j] = f.x - 128.0f;
      q[j + 4] = f.y - 128.0f;
    }
  }
}

// The 8 weights q - z of one word as bf16, for the tensor cores: whole numbers -15..15, which
// bf16 holds exactly: one paired subtraction of (128 + z) (exact in bf16 too) from the biased
// pair leaves q - z.
__device__ __forceinline__ Bf16Pack<8> centred_codes(unsigned int word, __nv_bfloat162 offset) {
  Bf16Pack<8> v;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const __nv_bfloat162 d = __hsub2(biased_pair(word, j), offset);
    v.v[j] = d.x;
    v.v[j + 4] = d.y;
  }
  return v;
}

// The rows one tile reads: ROWS rows of packed w (with their scales and zero points) from n0,
// MT rows of x from m0, clamped to the last valid row so that every load is in bounds (edge
// tiles compute a duplicate row and do not store it). A pack of 8 * WORDS weights lies inside
// one group (G % (8 * WORDS) == 0), so sum_j x_j (q_j - z) s is s * (x.q - z * sum_j x_j):
// one zero point and one scale per pack. Offsets are 64-bit.
template <int ROWS, int MT, int WORDS, int UNPACK, int K, int G>
struct W4Tile {
  static constexpr int GROUPS = K / G;
  static constexpr int PER_PACK = 8 * WORDS;
  const Int4Pack<WORDS>* w[ROWS];
  const __nv_bfloat16* scale[ROWS];
  const unsigned int* zeros[ROWS];
  int zero_shift[ROWS];
  const Bf16Pack<8>* x[MT];

  __device__ __forceinline__ W4Tile(const __nv_bfloat16* xg, const int* wg, const __nv_bfloat16* sg, const int* zg, int m0,
                                    int n0, int M, int N) {
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int n = n0 + r < N ? n0 + r : N - 1;
      w[r] = reinterpret_cast<const Int4Pack<WORDS>*>(wg + static_cast<long long>(n) * (K / 8));
      scale[r] = sg + static_cast<long long>(n) * GROUPS;
      zeros[r] = reinterpret_cast<const unsigned int*>(zg) + static_cast<long long>(n / 8) * GROUPS;
      zero_shift[r] = 4 * (n % 8);
    }
#pragma unroll
    for (int i = 0; i < MT; ++i)
      x[i] = reinterpret_cast<const Bf16Pack<8>*>(xg + static_cast<long long>(m0 + i < M ? m0 + i : M - 1) * K);
  }

  // acc[i][r] += x[m0+i, pack p] . dequantized w[n0+r, pack p]; each w pack is loaded and
  // unpacked once and reused for the MT rows of x.
  __device__ __forceinline__ void accumulate(float (&acc)[MT][ROWS], int p) const {
    const int g = p * PER_PACK / G;
    float q[ROWS][PER_PACK];
    float s[ROWS], z[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const Int4Pack<WORDS> pack = w[r][p];
#pragma unroll
      for (int c = 0; c < WORDS; ++c) unpack_word<UNPACK>(pack.v[c], &q[r][8 * c]);
      s[r] = __bfloat162float(scale[r][g]);
      z[r] = static_cast<float>((zeros[r][g] >> zero_shift[r]) & 15u);
    }
#pragma unroll
    for (int i = 0; i < MT; ++i) {
      float dot[ROWS] = {};
      float xsum = 0.f;
#pragma unroll
      for (int c = 0; c < WORDS; ++c) {
        const Bf16Pack<8> xp = x[i][p * WORDS + c];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const float xv = __bfloat162float(xp.v[j]);
          xsum += xv;
#pragma unroll
          for (int r = 0; r < ROWS; ++r) dot[r] = fmaf(xv, q[r][8 * c + j], dot[r]);
        }
      }
#pragma unroll
      for (int r = 0; r < ROWS; ++r) acc[i][r] = fmaf(s[r], fmaf(-z[r], xsum, dot[r]), acc[i][r]);
    }
  }
};
