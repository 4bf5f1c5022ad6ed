// The extern "C" built-ins that compiled kernels call (declared in hone_emu/abi.h); each forwards
// to the scheduler of the block running on this OS thread.
#include <chrono>
#include <string>

#include "block_scheduler.hpp"
#include "cluster_runner.hpp"
#include "hone_emu/abi.h"

using hone::emu::BlockScheduler;

extern "C" {

__thread hone_emu_thread* hone_emu_self = nullptr;

int hone_emu_syncthreads(int predicate) { return BlockScheduler::running()->sync_block(predicate); }

const unsigned long long* hone_emu_warp_gather(unsigned int mask, const char* op, unsigned long long value,
                                               unsigned int* group) {
  return BlockScheduler::running()->warp_gather(mask, op, value, group);
}

unsigned long long hone_emu_warp_shuffle(unsigned int mask, const char* op, unsigned long long value, int src) {
  return BlockScheduler::running()->warp_shuffle(mask, op, value, src);
}

void hone_emu_cluster_sync(void) { BlockScheduler::running()->sync_cluster(); }

void* hone_emu_map_shared_rank(const void* address, unsigned int rank) {
  return hone::emu::map_shared_rank(address, rank);
}

unsigned int hone_emu_activemask(void) { return BlockScheduler::running()->active_mask(); }

void hone_emu_fault(const char* reason) {
  BlockScheduler* s = BlockScheduler::running();
  s->fault(std::string(reason) + " in " + s->current_thread_name());
}

void hone_emu_assert_fail(const char* expr, const char* file, unsigned int line, const char* function) {
  BlockScheduler* s = BlockScheduler::running();
  s->fault("assertion '" + std::string(expr) + "' failed at " + file + ":" + std::to_string(line) + " in " + function +
           ", " + s->current_thread_name());
}

long long hone_emu_clock64(void) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}
