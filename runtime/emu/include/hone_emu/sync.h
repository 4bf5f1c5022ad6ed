#pragma once
// Block barriers, warp barriers and memory fences.
#include "hone_emu/builtin_vars.h"

inline void __syncthreads() { hone_emu_syncthreads(0); }
inline int __syncthreads_count(int predicate) { return hone_emu_syncthreads(predicate != 0); }
inline int __syncthreads_and(int predicate) {
  const int n = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  return hone_emu_syncthreads(predicate != 0) == n;
}
inline int __syncthreads_or(int predicate) { return hone_emu_syncthreads(predicate != 0) != 0; }

inline void __syncwarp(unsigned int mask = 0xffffffffu) {
  unsigned int group;
  hone_emu_warp_gather(mask, "__syncwarp", 0, &group);
}
inline unsigned int __activemask() { return hone_emu_activemask(); }

// Blocks run on concurrent OS threads: fences are real fences.
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
