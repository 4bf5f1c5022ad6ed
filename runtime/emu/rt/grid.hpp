#pragma once
// The emulation runtime's entry point for hosts: run a whole grid of a loaded kernel.
#include <cstddef>
#include <filesystem>
#include <string>

namespace hone::emu {

struct GridShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t dynamic_smem = 0;
};

/// The reason a shape cannot be launched (zero dimension, more than 1024 threads in a block,
/// CUDA's per-dimension limits), or "" when it can.
std::string check_grid_shape(const GridShape& shape);

/// Runs every block of the grid, blocks in parallel on the worker pool; `kernel(args)` is the
/// compiled trampoline that calls the __global__ function. Returns "" on success, else the
/// fault of the lowest-numbered faulting block. Other blocks still running finish first, and no
/// fiber outlives the call.
std::string run_grid(void (*kernel)(void**), void** args, const GridShape& shape);

/// Where this runtime library was loaded from: kernels are linked against exactly this file.
std::filesystem::path runtime_library_path();

}  // namespace hone::emu
