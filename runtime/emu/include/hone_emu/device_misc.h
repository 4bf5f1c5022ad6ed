#pragma once
// printf, assert, traps, cache-hinted loads and stores, clocks and sleeps.
#include <stdio.h>
#include <assert.h>  // resolves to the emu shim: a failed assert faults the launch

#include "hone_emu/abi.h"

inline void __trap() { hone_emu_fault("the kernel executed __trap()"); }
inline void __brkpt() { hone_emu_fault("the kernel executed __brkpt()"); }

// Cache hints mean nothing on the CPU.
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

inline long long clock64() { return hone_emu_clock64(); }
inline void __nanosleep(unsigned int) {}
