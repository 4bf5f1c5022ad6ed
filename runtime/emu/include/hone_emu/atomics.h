#pragma once
// CUDA atomics as real atomics: blocks of a launch run concurrently on several OS threads.

namespace hone_emu {

// Applies `update` to *addr atomically through a compare-and-swap on its bit pattern; returns
// the old value. U is the unsigned integer type of T's size.
template <class U, class T, class F>
inline T atomic_update(T* addr, F update) {
  static_assert(sizeof(U) == sizeof(T), "bit pattern type must match");
  U* bits = reinterpret_cast<U*>(addr);
  U expected = __atomic_load_n(bits, __ATOMIC_SEQ_CST);
  for (;;) {
    T old;
    __builtin_memcpy(&old, &expected, sizeof(T));
    const T next = update(old);
    U desired;
    __builtin_memcpy(&desired, &next, sizeof(T));
    if (__atomic_compare_exchange_n(bits, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}

template <class T>
inline T atomic_cas(T* addr, T compare, T value) {
  __atomic_compare_exchange_n(addr, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // the old value whether or not the swap happened
}

}  // namespace hone_emu

#define HONE_EMU_INTEGER_ATOMICS(T)                                                                  \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }               \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }             \
  inline T atomicCAS(T* a, T compare, T v) { return hone_emu::atomic_cas(a, compare, v); }           \
  inline T atomicMax(T* a, T v) { return hone_emu::atomic_update<T>(a, [v](T o) { return o > v ? o : v; }); } \
  inline T atomicMin(T* a, T v) { return hone_emu::atomic_update<T>(a, [v](T o) { return o < v ? o : v; }); } \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }               \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                 \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }

HONE_EMU_INTEGER_ATOMICS(int)
HONE_EMU_INTEGER_ATOMICS(unsigned int)
HONE_EMU_INTEGER_ATOMICS(unsigned long long)
#undef HONE_EMU_INTEGER_ATOMICS

inline int atomicSub(int* a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline unsigned int atomicSub(unsigned int* a, unsigned int v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline long long atomicMax(long long* a, long long v) {
  return hone_emu::atomic_update<unsigned long long>(a, [v](long long o) { return o > v ? o : v; });
}
inline long long atomicMin(long long* a, long long v) {
  return hone_emu::atomic_update<unsigned long long>(a, [v](long long o) { return o < v ? o : v; });
}
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) {
  return hone_emu::atomic_cas(a, compare, v);
}
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
  return hone_emu::atomic_update<unsigned int>(a, [limit](unsigned int o) { return o >= limit ? 0u : o + 1; });
}
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
  return hone_emu::atomic_update<unsigned int>(a, [limit](unsigned int o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
inline float atomicAdd(float* a, float v) {
  return hone_emu::atomic_update<unsigned int>(a, [v](float o) { return o + v; });
}
inline double atomicAdd(double* a, double v) {
  return hone_emu::atomic_update<unsigned long long>(a, [v](double o) { return o + v; });
}
inline float atomicExch(float* a, float v) {
  return hone_emu::atomic_update<unsigned int>(a, [v](float) { return v; });
}

// Scoped variants: every scope is the whole process here.
#define HONE_EMU_SCOPED(name)                                                                        \
  template <class... A>                                                                              \
  inline auto name##_block(A... a) -> decltype(name(a...)) { return name(a...); }                    \
  template <class... A>                                                                              \
  inline auto name##_system(A... a) -> decltype(name(a...)) { return name(a...); }
HONE_EMU_SCOPED(atomicAdd)
HONE_EMU_SCOPED(atomicSub)
HONE_EMU_SCOPED(atomicExch)
HONE_EMU_SCOPED(atomicCAS)
HONE_EMU_SCOPED(atomicMax)
HONE_EMU_SCOPED(atomicMin)
HONE_EMU_SCOPED(atomicAnd)
HONE_EMU_SCOPED(atomicOr)
HONE_EMU_SCOPED(atomicXor)
HONE_EMU_SCOPED(atomicInc)
HONE_EMU_SCOPED(atomicDec)
#undef HONE_EMU_SCOPED
