#pragma once
// Warp intrinsics: shuffles on the runtime's warp shuffle (a lane waits only for the lane it
// reads); votes, matches and reductions on its warp gather (a warp barrier that hands every
// participant the values of all the others).
#include "hone_emu/builtin_vars.h"

namespace hone_emu {

template <class T>
inline unsigned long long to_bits(T v) {
  static_assert(sizeof(T) <= 8, "warp intrinsics exchange at most 8 bytes");
  unsigned long long b = 0;
  __builtin_memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  __builtin_memcpy(&v, &b, sizeof(T));
  return v;
}

// src is the lane to read; a lane outside the group (or negative) yields the caller's own value,
// as the hardware does for an out-of-segment source.
template <class T>
inline T shuffle(const char* op, unsigned int mask, T var, int src) {
  return from_bits<T>(hone_emu_warp_shuffle(mask, op, to_bits(var), src >= 0 && src < 32 ? src : -1));
}

inline int segment_start(int width) { return static_cast<int>(lane_id()) & ~(width - 1); }

template <class T>
inline T shfl_idx(unsigned int mask, T var, int src_lane, int width) {
  return shuffle("__shfl_sync", mask, var, segment_start(width) + (src_lane & (width - 1)));
}
template <class T>
inline T shfl_up(unsigned int mask, T var, unsigned int delta, int width) {
  const int src = static_cast<int>(lane_id()) - static_cast<int>(delta);
  return shuffle("__shfl_up_sync", mask, var, src < segment_start(width) ? -1 : src);
}
template <class T>
inline T shfl_down(unsigned int mask, T var, unsigned int delta, int width) {
  const int src = static_cast<int>(lane_id()) + static_cast<int>(delta);
  return shuffle("__shfl_down_sync", mask, var, src >= segment_start(width) + width ? -1 : src);
}
// A butterfly may read an earlier segment but not a later one.
template <class T>
inline T shfl_xor(unsigned int mask, T var, int lane_mask, int width) {
  const int src = static_cast<int>(lane_id()) ^ lane_mask;
  return shuffle("__shfl_xor_sync", mask, var, src >= segment_start(width) + width ? -1 : src);
}

template <class T>
inline unsigned int match_any(unsigned int mask, T value) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, "__match_any_sync", to_bits(value), &group);
  const unsigned long long mine = to_bits(value);
  unsigned int same = 0;
  for (int l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && all[l] == mine) same |= 1u << l;
  return same;
}
template <class T>
inline unsigned int match_all(unsigned int mask, T value, int* pred) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, "__match_all_sync", to_bits(value), &group);
  const unsigned long long mine = to_bits(value);
  for (int l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && all[l] != mine) {
      *pred = 0;
      return 0;
    }
  *pred = 1;
  return mask;
}

template <class T, class F>
inline T reduce(const char* op, unsigned int mask, T value, F combine) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, op, to_bits(value), &group);
  bool first = true;
  T acc{};
  for (int l = 0; l < 32; ++l)
    if ((group >> l) & 1u) {
      const T v = from_bits<T>(all[l]);
      acc = first ? v : combine(acc, v);
      first = false;
    }
  return acc;
}

}  // namespace hone_emu

// The overload set CUDA declares for every shuffle (other types, like CUDA's, convert to these).
#define HONE_EMU_SHUFFLES(T)                                                                         \
  inline T __shfl_sync(unsigned int mask, T var, int src_lane, int width = warpSize) {               \
    return hone_emu::shfl_idx(mask, var, src_lane, width);                                           \
  }                                                                                                  \
  inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize) {      \
    return hone_emu::shfl_up(mask, var, delta, width);                                               \
  }                                                                                                  \
  inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = warpSize) {    \
    return hone_emu::shfl_down(mask, var, delta, width);                                             \
  }                                                                                                  \
  inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = warpSize) {          \
    return hone_emu::shfl_xor(mask, var, lane_mask, width);                                          \
  }

HONE_EMU_SHUFFLES(int)
HONE_EMU_SHUFFLES(unsigned int)
HONE_EMU_SHUFFLES(long)
HONE_EMU_SHUFFLES(unsigned long)
HONE_EMU_SHUFFLES(long long)
HONE_EMU_SHUFFLES(unsigned long long)
HONE_EMU_SHUFFLES(float)
HONE_EMU_SHUFFLES(double)

inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, "__ballot_sync", predicate != 0, &group);
  unsigned int ballot = 0;
  for (int l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && all[l]) ballot |= 1u << l;
  return ballot;
}
inline int __any_sync(unsigned int mask, int predicate) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, "__any_sync", predicate != 0, &group);
  for (int l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && all[l]) return 1;
  return 0;
}
inline int __all_sync(unsigned int mask, int predicate) {
  unsigned int group;
  const unsigned long long* all = hone_emu_warp_gather(mask, "__all_sync", predicate != 0, &group);
  for (int l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && !all[l]) return 0;
  return 1;
}

#define HONE_EMU_MATCHES(T)                                                                           \
  inline unsigned int __match_any_sync(unsigned int mask, T value) { return hone_emu::match_any(mask, value); } \
  inline unsigned int __match_all_sync(unsigned int mask, T value, int* pred) {                       \
    return hone_emu::match_all(mask, value, pred);                                                    \
  }
HONE_EMU_MATCHES(int)
HONE_EMU_MATCHES(unsigned int)
HONE_EMU_MATCHES(long)
HONE_EMU_MATCHES(unsigned long)
HONE_EMU_MATCHES(long long)
HONE_EMU_MATCHES(unsigned long long)
HONE_EMU_MATCHES(float)
HONE_EMU_MATCHES(double)
#undef HONE_EMU_MATCHES

inline unsigned int __reduce_add_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_add_sync", mask, v, [](unsigned int a, unsigned int b) { return a + b; });
}
inline int __reduce_add_sync(unsigned int mask, int v) {
  return static_cast<int>(__reduce_add_sync(mask, static_cast<unsigned int>(v)));
}
inline unsigned int __reduce_min_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_min_sync", mask, v, [](unsigned int a, unsigned int b) { return a < b ? a : b; });
}
inline int __reduce_min_sync(unsigned int mask, int v) {
  return hone_emu::reduce("__reduce_min_sync", mask, v, [](int a, int b) { return a < b ? a : b; });
}
inline unsigned int __reduce_max_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_max_sync", mask, v, [](unsigned int a, unsigned int b) { return a > b ? a : b; });
}
inline int __reduce_max_sync(unsigned int mask, int v) {
  return hone_emu::reduce("__reduce_max_sync", mask, v, [](int a, int b) { return a > b ? a : b; });
}
inline unsigned int __reduce_and_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_and_sync", mask, v, [](unsigned int a, unsigned int b) { return a & b; });
}
inline unsigned int __reduce_or_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_or_sync", mask, v, [](unsigned int a, unsigned int b) { return a | b; });
}
inline unsigned int __reduce_xor_sync(unsigned int mask, unsigned int v) {
  return hone_emu::reduce("__reduce_xor_sync", mask, v, [](unsigned int a, unsigned int b) { return a ^ b; });
}
