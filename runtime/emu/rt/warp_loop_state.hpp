#pragma once
// The state of a block whose kernel runs as warp loops (warp_loops.cpp): per thread, where it is
// and what it brought to its last barrier; per warp, which lanes are ready and its last two
// whole-warp shuffles; the group of lanes the kernel runs now.
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "gathered_values.hpp"
#include "hone_emu/abi.h"

namespace hone::emu {

enum class LoopWait : std::uint8_t { ready, warp_barrier, block_barrier, exited };

// What a post writes of a lane is on one cache line (the kernel between two posts may stream
// through far more memory than the cache holds); its count of whole-warp shuffles is in the dense
// `posts` below, which a warp's settling reads for all its lanes.
struct alignas(64) LoopLane {
  GatheredValues* held = nullptr;  // what its last gather handed it, until its next post or exit
  unsigned at = 0;                 // the region it runs next (ready), or the barrier it posted at
  LoopWait wait = LoopWait::ready;
  bool gather = false;  // posted at a warp barrier that hands every member's value to each
  bool full = false;    // posted at a shuffle whose mask names the whole warp
  unsigned mask = 0;
  const char* op = nullptr;
  int src = 0;
  unsigned long long value = 0;
  unsigned long long vals[2] = {};  // its values at its last two whole-warp shuffles, by parity
  int predicate = 0;
  int block_count = 0;
  unsigned group = 0;  // the lanes its last gather met
};

// Per warp, by parity, the last two whole-warp shuffles: their number, how many lanes posted,
// and the mask, intrinsic and lane of the first to post (every later lane must bring the same).
struct LoopSlot {
  unsigned k = ~0u;
  unsigned arrived = 0;
  unsigned mask = 0;
  const char* op = nullptr;
  unsigned first = 0;
};

struct WarpLoopState {
  struct FreeFrame {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  bool on = false;
  std::unique_ptr<unsigned char, FreeFrame> frame;  // the threads' variables, a slot each
  std::size_t frame_capacity = 0;
  std::unique_ptr<LoopLane[]> lanes;
  unsigned ready[32];          // per warp: lanes ready to run a region
  unsigned region_of[32];      // per warp: the region all its ready lanes are at, or ~0u
  unsigned at_shuffle[32];     // per warp: lanes posted at a warp barrier not yet complete
  LoopSlot slots[32][2];
  unsigned at_block = 0;       // threads posted at __syncthreads
  unsigned cursor = 0;         // plain order: the warp to look at first, so that warps go in step
  hone_emu_loop_block block;   // what the kernel reads: the group it runs now (of block.warp), ...
  std::unique_ptr<hone_emu_thread*[]> threads;     // ... each thread's record ...
  std::unique_ptr<unsigned long long[]> results;   // ... and each lane's last shuffle result
  std::unique_ptr<unsigned[]> posts;  // per thread: whole-warp shuffles posted (the k-th of every lane is the same one)
  // per thread: where the kernel writes a post at a shuffle of the constant whole warp itself, in
  // plain order (hone_emu_wl_shuffle_record)
  std::unique_ptr<hone_emu_wl_shuffle_record[]> shuffle_records;
  unsigned owner = 0;          // the thread whose stack the kernel runs on
};

}  // namespace hone::emu
