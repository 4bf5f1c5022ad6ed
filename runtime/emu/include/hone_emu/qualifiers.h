#pragma once
// CUDA's function and variable qualifiers, as host C++ understands them.

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __noinline__ __attribute__((noinline))
// Empty rather than always_inline: GCC rejects `inline __forceinline__` as a duplicate inline and
// warns on always_inline without inline; -O2 inlines the small helpers anyway.
#define __forceinline__
#define __inline_hint__

// A block runs all its threads as fibers of one OS thread, and an OS thread runs one block at a
// time, so thread_local storage is exactly per-block storage: one instance per running block.
// (thread_local at block scope implies static, as __shared__ does.)
#define __shared__ thread_local

#ifndef __clang__
#define __builtin_assume(x) ((void)0)
#endif
