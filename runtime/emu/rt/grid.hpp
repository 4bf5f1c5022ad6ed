#pragma once
// The emulation runtime's entry point for hosts: run a whole grid of a loaded kernel.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace hone::emu {

struct GridShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t dynamic_smem = 0;
  unsigned cluster[3] = {1, 1, 1};  // blocks per cluster (the kernel's __cluster_dims__)
};

/// A kernel module's static __shared__ variables. The prelude makes __shared__ thread_local, so
/// they are exactly the module's thread-local storage: one block of `bytes` per OS thread, which
/// starts `offset` bytes before the address touch() returns (touch() also makes the C++ runtime
/// allocate it). Every block starts with it poisoned, as it starts with garbage on a GPU.
struct StaticSharedLayout {
  void* (*touch)() = nullptr;
  std::ptrdiff_t offset = 0;
  std::size_t bytes = 0;
};

/// What a launch needs besides its shape.
struct LaunchExtras {
  StaticSharedLayout static_shared;
  /// 0: blocks in order, threads resumed first come, first served (warps advance in step).
  /// Otherwise blocks are handed out in a shuffled order, and in each block the warps run in a
  /// drawn order of priority, the first as far ahead of the others as it can get, lanes in a drawn
  /// order (see BlockScheduler::pop_ready); all of it fixed by the seed. Blocks still run
  /// concurrently on the pool, so only the order within a block replays exactly.
  std::uint64_t schedule_seed = 0;
};

/// The reason a shape cannot be launched (zero dimension, more than 1024 threads in a block,
/// CUDA's per-dimension limits, a grid that is not whole clusters, a cluster larger than CUDA's
/// portable limit or than emu runs), or "" when it can.
std::string check_grid_shape(const GridShape& shape);

/// Runs every block of the grid, blocks (or clusters, see cluster_runner.hpp) in parallel on the
/// worker pool; `kernel(args)` is the
/// compiled trampoline that calls the __global__ function. Returns "" on success, else the
/// fault of the lowest-numbered faulting block. Other blocks still running finish first, and no
/// fiber outlives the call.
std::string run_grid(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras = {});

/// Fiber switches (resumptions of an emulated thread) since the process started, over all blocks.
std::uint64_t fiber_switch_count();

/// Posts at whole-warp shuffles that kernels compiled as warp loops wrote into their records
/// themselves instead of calling the runtime, since the process started.
std::uint64_t shuffle_record_count();

/// The OS threads that run blocks, started now if they were not yet (a sandbox starts them
/// before it forbids what starting them needs).
unsigned start_block_threads();

/// Where this runtime library was loaded from: kernels are linked against exactly this file.
std::filesystem::path runtime_library_path();

}  // namespace hone::emu
