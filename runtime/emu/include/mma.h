#pragma once
// The emu device's <mma.h>: nvcuda::wmma with bf16 inputs and float accumulators, in the three
// shapes CUDA has for them (16x16x16, 32x8x16, 8x32x16), so that a tensor-core kernel's own
// source is checked on the CPU.
//
// A fragment is spread over the 32 lanes of a warp as on the GPU: each lane holds 1/32 of the
// tile, CUDA's element counts. The order of the elements is emu's own (k fastest in the inputs,
// the accumulator row by row); CUDA leaves it unspecified, so a kernel may only treat every
// element alike (scale, convert, fill), which works under any order.
//
// What the GPU requires and emu checks, as a fault naming the thread: every lane of a whole warp
// takes part in each load, store and mma (emu meets the lanes at a warp barrier, so a divergent
// call is barrier divergence), with the same pointer, leading dimension and layout; the pointer
// is 32-byte aligned and the leading dimension a multiple of 16 bytes.
//
// mma_sync multiplies in float: bf16 products are exact there; they are summed pairwise and then
// added to c (the GPU's order of accumulation is not specified either).
#include <cuda_bf16.h>

#include <type_traits>

#include "hone_emu/builtin_vars.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace detail {

template <int M, int N, int K>
constexpr bool supported_shape = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                                 (M == 8 && N == 32 && K == 16);

// A fragment's tile: `rows` x `cols` as the matrix has it, and where element `idx` of the warp's
// 1/32 split sits in it. The inputs keep k fastest (a: rows are m; b: columns are n).
template <class Use, int M, int N, int K>
struct Tile;
template <int M, int N, int K>
struct Tile<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
  static constexpr int row(int idx) { return idx / K; }
  static constexpr int col(int idx) { return idx % K; }
};
template <int M, int N, int K>
struct Tile<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
  static constexpr int row(int idx) { return idx % K; }
  static constexpr int col(int idx) { return idx / K; }
};
template <int M, int N, int K>
struct Tile<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
  static constexpr int row(int idx) { return idx / N; }
  static constexpr int col(int idx) { return idx % N; }
};

template <class Use, class T, class Layout>
constexpr bool supported_types =
    std::is_same_v<Use, accumulator> ? std::is_same_v<T, float> && std::is_same_v<Layout, void>
                                     : std::is_same_v<T, __nv_bfloat16> &&
                                           (std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>);

inline unsigned long long mix(unsigned long long h, unsigned long long v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

// The lanes that met at a warp barrier (a partial last warp has fewer): wmma needs all 32.
inline void require_whole_warp(unsigned group) {
  if (group != 0xffffffffu) hone_emu_fault("a wmma operation needs all 32 lanes of a warp, but this warp is partial");
}

// Meets the whole warp at `op` and faults unless every lane brought the same key.
inline void require_uniform(const char* op, unsigned long long key, const char* what) {
  unsigned group;
  const unsigned long long* all = hone_emu_warp_gather(0xffffffffu, op, key, &group);
  require_whole_warp(group);
  for (int l = 0; l < 32; ++l)
    if (all[l] != key) hone_emu_fault(what);
}

// Row k of p += row k + H, for k < H, then the same for H / 2 ... 1: the pairwise sums of p's K
// rows (in a fixed order), a row at a time, with bounds the compiler can vectorise.
template <int H, int N>
inline void fold_halves(float (*p)[N]) {
  for (int k = 0; k < H; ++k)
    for (int n = 0; n < N; ++n) p[k][n] += p[k + H][n];
  if constexpr (H > 1) fold_halves<H / 2, N>(p);
}

template <class T>
inline void check_operand(const char* op, const T* p, unsigned ldm, int layout) {
  if (reinterpret_cast<unsigned long long>(p) % 32 != 0) hone_emu_fault("wmma: a load or store pointer that is not 32-byte aligned");
  if (ldm * sizeof(T) % 16 != 0) hone_emu_fault("wmma: a leading dimension that is not a multiple of 16 bytes");
  require_uniform(op, mix(mix(reinterpret_cast<unsigned long long>(p), ldm), static_cast<unsigned long long>(layout)),
                  "wmma: the lanes of a warp pass different pointers, leading dimensions or layouts to one load or store");
}

inline long long offset(int r, int c, unsigned ldm, bool row_major_memory) {
  return row_major_memory ? static_cast<long long>(r) * ldm + c : static_cast<long long>(c) * ldm + r;
}

}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
  static_assert(detail::supported_shape<M, N, K>, "emu's wmma has the shapes 16x16x16, 32x8x16 and 8x32x16");
  static_assert(detail::supported_types<Use, T, Layout>,
                "emu's wmma has bf16 matrix_a/matrix_b fragments (row_major or col_major) and float accumulators");

 public:
  using element_type = T;
  using storage_element_type = T;
  static constexpr int num_elements = detail::Tile<Use, M, N, K>::rows * detail::Tile<Use, M, N, K>::cols / 32;
  T x[num_elements];
};

// The value is not deduced (as in CUDA): fill_fragment(a_bf16, 0.0f) converts.
template <class Use, int M, int N, int K, class T, class Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                          const typename fragment<Use, M, N, K, T, Layout>::element_type& v) {
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

template <class Use, int M, int N, int K, class Layout>
inline void load_matrix_sync(fragment<Use, M, N, K, __nv_bfloat16, Layout>& f, const __nv_bfloat16* p, unsigned ldm) {
  constexpr bool row = std::is_same_v<Layout, row_major>;
  detail::check_operand("wmma::load_matrix_sync", p, ldm, row);
  using Tile = detail::Tile<Use, M, N, K>;
  const int first = static_cast<int>(hone_emu::lane_id()) * f.num_elements;
  for (int i = 0; i < f.num_elements; ++i)
    f.x[i] = p[detail::offset(Tile::row(first + i), Tile::col(first + i), ldm, row)];
}

template <int M, int N, int K>
inline void load_matrix_sync(fragment<accumulator, M, N, K, float>& f, const float* p, unsigned ldm, layout_t layout) {
  detail::check_operand("wmma::load_matrix_sync", p, ldm, layout);
  using Tile = detail::Tile<accumulator, M, N, K>;
  const int first = static_cast<int>(hone_emu::lane_id()) * f.num_elements;
  for (int i = 0; i < f.num_elements; ++i)
    f.x[i] = p[detail::offset(Tile::row(first + i), Tile::col(first + i), ldm, layout == mem_row_major)];
}

template <int M, int N, int K>
inline void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f, unsigned ldm, layout_t layout) {
  detail::check_operand("wmma::store_matrix_sync", p, ldm, layout);
  using Tile = detail::Tile<accumulator, M, N, K>;
  const int first = static_cast<int>(hone_emu::lane_id()) * f.num_elements;
  for (int i = 0; i < f.num_elements; ++i)
    p[detail::offset(Tile::row(first + i), Tile::col(first + i), ldm, layout == mem_row_major)] = f.x[i];
}

// d = a b + c over the warp, in one meeting: each lane deposits where its operands are, and the
// first lane to run on afterwards (when none has run on yet, so every lane's a, b, c and d are
// still as they were) computes the whole tile and writes every lane's d; the others find theirs
// done. Each element of d: the K products (exact in float for bf16), summed pairwise, then added
// to c. The tile is widened to float once and the sums run over a row of d at a time.
template <int M, int N, int K, class LA, class LB>
inline void mma_sync(fragment<accumulator, M, N, K, float>& d, const fragment<matrix_a, M, N, K, __nv_bfloat16, LA>& a,
                     const fragment<matrix_b, M, N, K, __nv_bfloat16, LB>& b,
                     const fragment<accumulator, M, N, K, float>& c) {
  using A = fragment<matrix_a, M, N, K, __nv_bfloat16, LA>;
  using B = fragment<matrix_b, M, N, K, __nv_bfloat16, LB>;
  using D = fragment<accumulator, M, N, K, float>;
  struct Operands {
    const A* a;
    const B* b;
    const D* c;
    D* d;
    bool done;
  } mine{&a, &b, &c, &d, false};
  unsigned group;
  const unsigned long long* all =
      hone_emu_warp_gather(0xffffffffu, "wmma::mma_sync", reinterpret_cast<unsigned long long>(&mine), &group);
  detail::require_whole_warp(group);
  if (mine.done) return;
  Operands* lanes[32];
  for (int l = 0; l < 32; ++l) lanes[l] = reinterpret_cast<Operands*>(all[l]);

  using TA = detail::Tile<matrix_a, M, N, K>;
  using TB = detail::Tile<matrix_b, M, N, K>;
  constexpr int EA = A::num_elements, EB = B::num_elements, ED = D::num_elements;
  float at[M][K], bt[K][N], dt[M][N];
  for (int l = 0; l < 32; ++l) {
    for (int e = 0; e < EA; ++e) at[TA::row(l * EA + e)][TA::col(l * EA + e)] = __bfloat162float(lanes[l]->a->x[e]);
    for (int e = 0; e < EB; ++e) bt[TB::row(l * EB + e)][TB::col(l * EB + e)] = __bfloat162float(lanes[l]->b->x[e]);
  }
  for (int r = 0; r < M; ++r) {
    float p[K][N];
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n) p[k][n] = at[r][k] * bt[k][n];
    detail::fold_halves<K / 2, N>(p);
    for (int n = 0; n < N; ++n) dt[r][n] = p[0][n];
  }
  float out[32][ED];  // every lane's c is read before any d is written
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < ED; ++i) out[l][i] = lanes[l]->c->x[i] + dt[(l * ED + i) / N][(l * ED + i) % N];
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < ED; ++i) lanes[l]->d->x[i] = out[l][i];
    lanes[l]->done = true;
  }
}

}  // namespace wmma
}  // namespace nvcuda
