#pragma once
// CUDA's built-in vector types with CUDA's sizes and alignments, their make_ functions, and dim3.

#define HONE_EMU_VEC1(T, S, A) \
  struct __attribute__((aligned(A))) T { S x; }; \
  inline T make_##T(S x) { return T{x}; }
#define HONE_EMU_VEC2(T, S, A) \
  struct __attribute__((aligned(A))) T { S x, y; }; \
  inline T make_##T(S x, S y) { return T{x, y}; }
#define HONE_EMU_VEC3(T, S) \
  struct T { S x, y, z; }; \
  inline T make_##T(S x, S y, S z) { return T{x, y, z}; }
#define HONE_EMU_VEC4(T, S, A) \
  struct __attribute__((aligned(A))) T { S x, y, z, w; }; \
  inline T make_##T(S x, S y, S z, S w) { return T{x, y, z, w}; }
#define HONE_EMU_VEC_FAMILY(N, S, A1, A2, A4) \
  HONE_EMU_VEC1(N##1, S, A1) HONE_EMU_VEC2(N##2, S, A2) HONE_EMU_VEC3(N##3, S) HONE_EMU_VEC4(N##4, S, A4)

HONE_EMU_VEC_FAMILY(char, signed char, 1, 2, 4)
HONE_EMU_VEC_FAMILY(uchar, unsigned char, 1, 2, 4)
HONE_EMU_VEC_FAMILY(short, short, 2, 4, 8)
HONE_EMU_VEC_FAMILY(ushort, unsigned short, 2, 4, 8)
HONE_EMU_VEC_FAMILY(int, int, 4, 8, 16)
HONE_EMU_VEC_FAMILY(uint, unsigned int, 4, 8, 16)
HONE_EMU_VEC_FAMILY(long, long, 8, 16, 16)
HONE_EMU_VEC_FAMILY(ulong, unsigned long, 8, 16, 16)
HONE_EMU_VEC_FAMILY(longlong, long long, 8, 16, 16)
HONE_EMU_VEC_FAMILY(ulonglong, unsigned long long, 8, 16, 16)
HONE_EMU_VEC_FAMILY(float, float, 4, 8, 16)
HONE_EMU_VEC_FAMILY(double, double, 8, 16, 16)

#undef HONE_EMU_VEC_FAMILY
#undef HONE_EMU_VEC4
#undef HONE_EMU_VEC3
#undef HONE_EMU_VEC2
#undef HONE_EMU_VEC1

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
