#pragma once
// Thread-block clusters (sm_90's __cluster_dims__): the blocks of a cluster run together, meet at
// cluster.sync() and read each other's shared memory (cluster.map_shared_rank). On emu they take
// turns on one OS thread: a block runs until every one of its threads waits at cluster.sync() (or
// it finishes), then the next; when all have stopped there the barrier opens. Static __shared__
// variables are the module's thread-local storage (see StaticSharedLayout), so the runner keeps
// each block's copy while another block runs and swaps it in for its turn; a peer's static shared
// memory is reached in that kept copy, its dynamic shared memory in its own arena. The turns go
// in rank order, or in a seeded order per phase, so a read of a peer's shared memory that no
// cluster.sync() orders meets the poison of a block that has not written yet, and a block that
// exits while the others still read its shared memory leaves them poison too (as its shared
// memory is gone on the GPU).
#include <cstdint>
#include <string>
#include <vector>

#include "block_scheduler.hpp"

namespace hone::emu {

/// The most blocks in a cluster (CUDA's portable limit, the one __cluster_dims__ allows) and the
/// most threads in one on emu (all of them are fibers at once).
inline constexpr unsigned kMaxClusterBlocks = 8;
inline constexpr unsigned kMaxClusterThreads = 2048;

/// Runs the blocks of one cluster, `tasks` in rank order, to completion; returns "" or the fault
/// that ended the cluster. No fiber survives the call.
std::string run_cluster(const std::vector<BlockTask>& tasks, std::uint64_t schedule_seed);

/// cluster.map_shared_rank(address, rank) for the running thread; faults the launch when
/// `address` is not in its block's shared memory or `rank` is not in its cluster.
void* map_shared_rank(const void* address, unsigned rank);

}  // namespace hone::emu
