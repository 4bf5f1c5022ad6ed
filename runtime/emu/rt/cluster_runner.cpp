#include "cluster_runner.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>

#include "schedule_order.hpp"

namespace hone::emu {

namespace {

struct ClusterTurns {
  std::vector<std::unique_ptr<BlockScheduler>> schedulers;  // as many as the largest cluster run here
  std::vector<std::vector<unsigned char>> kept;  // per rank: its static shared memory while it does not run
  unsigned blocks = 0;
  unsigned running = 0;            // the rank whose turn it is
  unsigned char* tls = nullptr;    // this OS thread's copy of the module's static shared memory
  std::size_t tls_bytes = 0;
  bool active = false;
};

thread_local ClusterTurns turns;

unsigned char* static_shared_base(const StaticSharedLayout& s) {
  return s.touch && s.bytes ? static_cast<unsigned char*>(s.touch()) - s.offset : nullptr;
}

std::string block_text(const BlockTask& t) {
  return "block (" + std::to_string(t.block_idx.x) + "," + std::to_string(t.block_idx.y) + "," +
         std::to_string(t.block_idx.z) + ")";
}

}  // namespace

std::string run_cluster(const std::vector<BlockTask>& tasks, std::uint64_t schedule_seed) {
  ClusterTurns& c = turns;
  const unsigned n = static_cast<unsigned>(tasks.size());
  while (c.schedulers.size() < n) c.schedulers.push_back(std::make_unique<BlockScheduler>());
  c.blocks = n;
  c.tls = static_shared_base(tasks[0].static_shared);
  c.tls_bytes = c.tls ? tasks[0].static_shared.bytes : 0;
  c.kept.resize(n);
  for (auto& k : c.kept) k.assign(c.tls_bytes, 0xff);
  c.active = true;
  for (unsigned r = 0; r < n; ++r) c.schedulers[r]->begin(tasks[r]);

  std::vector<bool> ended(n, false);
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::uint64_t draw = schedule_seed;
  std::string fault;
  for (;;) {
    if (draw)
      for (unsigned i = n; i > 1; --i) std::swap(order[i - 1], order[(draw = mix64(draw)) % i]);
    bool waiting = false;
    for (const unsigned r : order) {
      if (ended[r]) continue;
      BlockScheduler& block = *c.schedulers[r];
      c.running = r;
      if (c.tls_bytes) std::memcpy(c.tls, c.kept[r].data(), c.tls_bytes);
      const BlockScheduler::Outcome outcome = block.proceed();
      if (c.tls_bytes) std::memcpy(c.kept[r].data(), c.tls, c.tls_bytes);
      if (outcome == BlockScheduler::Outcome::at_cluster_barrier) {
        waiting = true;
        continue;
      }
      ended[r] = true;
      fault = block.end();
      if (!fault.empty()) break;
      std::fill(c.kept[r].begin(), c.kept[r].end(), static_cast<unsigned char>(0xff));
      if (block.dynamic_shared_bytes()) std::memset(block.dynamic_shared(), 0xff, block.dynamic_shared_bytes());
    }
    if (!fault.empty() || !waiting) break;
    // Every block that has not ended waits at cluster.sync(); one that ended never will come.
    if (const auto gone = std::find(ended.begin(), ended.end(), true); gone != ended.end()) {
      const unsigned waiter = static_cast<unsigned>(std::find(ended.begin(), ended.end(), false) - ended.begin());
      fault = "cluster barrier divergence: " + block_text(tasks[waiter]) + " waits at cluster.sync() but " +
              block_text(tasks[static_cast<std::size_t>(gone - ended.begin())]) + " of its cluster has exited";
      break;
    }
    for (unsigned r = 0; r < n; ++r) c.schedulers[r]->release_cluster_barrier();
  }
  for (unsigned r = 0; r < n; ++r)
    if (!ended[r]) c.schedulers[r]->end();  // torn down after another block's fault: its own says nothing more
  c.active = false;
  return fault;
}

void* map_shared_rank(const void* address, unsigned rank) {
  const ClusterTurns& c = turns;
  BlockScheduler* me = BlockScheduler::running();
  const auto* p = static_cast<const unsigned char*>(address);
  const unsigned blocks = c.active ? c.blocks : 1;
  if (rank >= blocks)
    me->fault("cluster.map_shared_rank: rank " + std::to_string(rank) + " is not in a cluster of " +
              std::to_string(blocks) + " block" + (blocks == 1 ? "" : "s") + " (" + me->current_thread_name() + ")");
  if (!c.active) return const_cast<void*>(address);
  const BlockScheduler& own = *c.schedulers[c.running];
  const BlockScheduler& peer = *c.schedulers[rank];
  if (p >= own.dynamic_shared() && p < own.dynamic_shared() + own.dynamic_shared_bytes())
    return peer.dynamic_shared() + (p - own.dynamic_shared());
  if (c.tls && p >= c.tls && p < c.tls + c.tls_bytes)
    return rank == c.running ? const_cast<void*>(address) : const_cast<unsigned char*>(c.kept[rank].data()) + (p - c.tls);
  me->fault("cluster.map_shared_rank: the address is not in the shared memory of " + me->current_thread_name());
}

}  // namespace hone::emu
