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
      for (unsigned x = 0; x < cd[0]; ++x) {
        BlockTask t;
        t.kernel = kernel;
        t.args = args;
        t.grid_dim = dim3(shape.grid[0], shape.grid[1], shape.grid[2]);
        t.block_dim = dim3(shape.block[0], shape.block[1], shape.block[2]);
        t.block_idx = uint3{x0 + x, y0 + y, z0 + z};
        t.dynamic_smem = shape.dynamic_smem;
        t.static_shared = extras.static_shared;
        t.cluster_dim = dim3(cd[0], cd[1], cd[2]);
        const std::int64_t linear = t.block_idx.x + std::int64_t{shape.grid[0]} * (t.block_idx.y + std::int64_t{shape.grid[1]} * t.block_idx.z);
        t.schedule_seed = block_schedule_seed(extras.schedule_seed, linear);
        tasks.push_back(t);
      }
  return tasks;
}

// Clusters in parallel on the pool, the blocks of each in turns on one OS thread.
std::string run_clusters(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras) {
  const std::int64_t clusters = std::int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2] /
                                (std::int64_t{shape.cluster[0]} * shape.cluster[1] * shape.cluster[2]);
  const BlockOrder order(extras.schedule_seed, clusters);
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::int64_t error_cluster = std::numeric_limits<std::int64_t>::max();
  std::string error;
  const std::function<void(std::int64_t)> body = [&](std::int64_t i) {
    const std::int64_t c = order(i);
    std::string fault;
    try {
      fault = run_cluster(cluster_tasks(kernel, args, shape, extras, c), block_schedule_seed(extras.schedule_seed, c));
    } catch (const std::exception& e) {
      fault = std::string("emu runtime failure: ") + e.what();
    }
    if (fault.empty()) return;
    std::lock_guard lock(error_mutex);
    if (c < error_cluster) {
      error_cluster = c;
      error = fault;
    }
    stop = true;
  };
  WorkerPool::instance().parallel_for(clusters, body, stop);
  return error;
}

}  // namespace

std::string run_grid(void (*kernel)(void**), void** args, const GridShape& shape, const LaunchExtras& extras) {
  if (std::string bad = check_grid_shape(shape); !bad.empty()) return bad;
  const std::int64_t blocks = std::int64_t{shape.grid[0]} * shape.grid[1] * shape.grid[2];
  install_fault_handler();
  if (shape.cluster[0] * shape.cluster[1] * shape.cluster[2] > 1) return run_clusters(kernel, args, shape, extras);
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
