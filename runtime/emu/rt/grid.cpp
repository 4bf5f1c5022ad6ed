#include "grid.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>

#include "block_scheduler.hpp"
#include "fault_handler.hpp"
#include "schedule_order.hpp"
#include "worker_pool.hpp"

namespace hone::emu {

namespace {
std::string dims_text(const unsigned d[3]) {
  return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) + ")";
}
}  // namespace

std::string check_grid_shape(const GridShape& s) {
  for (int i = 0; i < 3; ++i) {
    if (s.grid[i] == 0) return "invalid launch: grid " + dims_text(s.grid) + " has a zero dimension";
    if (s.block[i] == 0) return "invalid launch: block " + dims_text(s.block) + " has a zero dimension";
  }
  const std::uint64_t threads = std::uint64_t{s.block[0]} * s.block[1] * s.block[2];
  if (threads > 1024)
    return "invalid launch: block " + dims_text(s.block) + " has " + std::to_string(threads) +
           " threads; at most 1024 are allowed";
  if (s.block[2] > 64) return "invalid launch: block " + dims_text(s.block) + " exceeds 64 in z";
  if (s.grid[0] > 2147483647u) return "invalid launch: grid " + dims_text(s.grid) + " exceeds 2^31-1 in x";
  if (s.grid[1] > 65535 || s.grid[2] > 65535)
    return "invalid launch: grid " + dims_text(s.grid) + " exceeds 65535 in y or z";
  return "";
}

std::string run_grid(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras) {
  if (std::string bad = check_grid_shape(shape); !bad.empty()) return bad;
  const std::int64_t blocks = std::int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2];
  install_fault_handler();
  const BlockOrder order(extras.schedule_seed, blocks);

  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::int64_t error_block = std::numeric_limits<std::int64_t>::max();
  std::string error;
  const std::function<void(std::int64_t)> body = [&](std::int64_t i) {
    const std::int64_t b = order(i);
    BlockTask task;
    task.kernel = kernel;
    task.args = args;
    task.grid_dim = dim3(shape.grid[0], shape.grid[1], shape.grid[2]);
    task.block_dim = dim3(shape.block[0], shape.block[1], shape.block[2]);
    task.block_idx = uint3{static_cast<unsigned>(b % shape.grid[0]),
                           static_cast<unsigned>(b / shape.grid[0] % shape.grid[1]),
                           static_cast<unsigned>(b / (std::int64_t{shape.grid[0]} * shape.grid[1]))};
    task.dynamic_smem = shape.dynamic_smem;
    task.static_shared = extras.static_shared;
    task.schedule_seed = block_schedule_seed(extras.schedule_seed, b);
    std::string fault;
    try {
      fault = BlockScheduler::for_this_thread().run(task);
    } catch (const std::exception& e) {
      fault = std::string("emu runtime failure: ") + e.what();
    }
    if (fault.empty()) return;
    std::lock_guard lock(error_mutex);
    if (b < error_block) {
      error_block = b;
      error = fault;
    }
    stop = true;
  };
  WorkerPool::instance().parallel_for(blocks, body, stop);
  return error;
}

unsigned start_block_threads() { return WorkerPool::instance().start_missing(); }

std::filesystem::path runtime_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&run_grid), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

}  // namespace hone::emu
