#include "grid.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <vector>

#include "block_scheduler.hpp"
#include "cluster_runner.hpp"
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
  const std::uint64_t cluster = std::uint64_t{s.cluster[0]} * s.cluster[1] * s.cluster[2];
  if (cluster == 1) return "";
  for (int i = 0; i < 3; ++i)
    if (s.cluster[i] == 0 || s.grid[i] % s.cluster[i] != 0)
      return "invalid launch: grid " + dims_text(s.grid) + " is not a whole number of clusters " + dims_text(s.cluster);
  if (cluster > kMaxClusterBlocks)
    return "invalid launch: cluster " + dims_text(s.cluster) + " has " + std::to_string(cluster) + " blocks; at most " +
           std::to_string(kMaxClusterBlocks) + " are allowed";
  if (cluster * threads > kMaxClusterThreads)
    return "cluster " + dims_text(s.cluster) + " of blocks " + dims_text(s.block) + " has " +
           std::to_string(cluster * threads) + " threads: the emu device runs a cluster's threads together and takes at most " +
           std::to_string(kMaxClusterThreads);
  return "";
}

namespace {

BlockTask block_task(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras, uint3 idx) {
  BlockTask t;
  t.kernel = kernel;
  t.args = args;
  t.grid_dim = dim3(shape.grid[0], shape.grid[1], shape.grid[2]);
  t.block_dim = dim3(shape.block[0], shape.block[1], shape.block[2]);
  t.block_idx = idx;
  t.dynamic_smem = shape.dynamic_smem;
  t.static_shared = extras.static_shared;
  t.cluster_dim = dim3(shape.cluster[0], shape.cluster[1], shape.cluster[2]);
  const std::int64_t linear = idx.x + std::int64_t{shape.grid[0]} * (idx.y + std::int64_t{shape.grid[1]} * idx.z);
  t.schedule_seed = block_schedule_seed(extras.schedule_seed, linear);
  return t;
}

// The blocks of cluster `c` (clusters numbered x fastest over the grid's clusters), in rank order.
std::vector<BlockTask> cluster_tasks(void (*kernel)(void**), void** args, const GridShape& shape,
                                     const LaunchExtras& extras, std::int64_t c) {
  const unsigned* cd = shape.cluster;
  const std::int64_t gx = shape.grid[0] / cd[0], gy = shape.grid[1] / cd[1];
  const unsigned x0 = static_cast<unsigned>(c % gx) * cd[0], y0 = static_cast<unsigned>(c / gx % gy) * cd[1],
                 z0 = static_cast<unsigned>(c / (gx * gy)) * cd[2];
  std::vector<BlockTask> tasks;
  for (unsigned z = 0; z < cd[2]; ++z)
    for (unsigned y = 0; y < cd[1]; ++y)
      for (unsigned x = 0; x < cd[0]; ++x) tasks.push_back(block_task(kernel, args, shape, extras, uint3{x0 + x, y0 + y, z0 + z}));
  return tasks;
}

// Runs units 0..count-1 (blocks, or clusters) on the pool in the seed's order; returns the fault
// of the lowest-numbered unit that faulted, or "". Units still running finish first.
std::string run_units(std::int64_t count, std::uint64_t seed, const std::function<std::string(std::int64_t)>& unit) {
  const BlockOrder order(seed, count);
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::int64_t error_unit = std::numeric_limits<std::int64_t>::max();
  std::string error;
  const std::function<void(std::int64_t)> body = [&](std::int64_t i) {
    const std::int64_t u = order(i);
    std::string fault;
    try {
      fault = unit(u);
    } catch (const std::exception& e) {
      fault = std::string("emu runtime failure: ") + e.what();
    }
    if (fault.empty()) return;
    std::lock_guard lock(error_mutex);
    if (u < error_unit) {
      error_unit = u;
      error = fault;
    }
    stop = true;
  };
  WorkerPool::instance().parallel_for(count, body, stop);
  return error;
}

}  // namespace

std::string run_grid(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras) {
  if (std::string bad = check_grid_shape(shape); !bad.empty()) return bad;
  const std::int64_t blocks = std::int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2];
  install_fault_handler();
  const std::int64_t cluster = std::int64_t{shape.cluster[0]} * shape.cluster[1] * shape.cluster[2];
  if (cluster > 1)  // clusters in parallel, the blocks of each in turns on one OS thread
    return run_units(blocks / cluster, extras.schedule_seed, [&](std::int64_t c) {
      return run_cluster(cluster_tasks(kernel, args, shape, extras, c), block_schedule_seed(extras.schedule_seed, c));
    });
  return run_units(blocks, extras.schedule_seed, [&](std::int64_t b) {
    const uint3 idx{static_cast<unsigned>(b % shape.grid[0]), static_cast<unsigned>(b / shape.grid[0] % shape.grid[1]),
                    static_cast<unsigned>(b / (std::int64_t{shape.grid[0]} * shape.grid[1]))};
    return BlockScheduler::for_this_thread().run(block_task(kernel, args, shape, extras, idx));
  });
}

unsigned start_block_threads() { return WorkerPool::instance().start_missing(); }

std::filesystem::path runtime_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&run_grid), &info) && info.dli_fname) return info.dli_fname;
  return {};
}

}  // namespace hone::emu
