#pragma once
// Where a kernel's barriers cut it. Each barrier call ends its block; a region is what a thread
// runs from the kernel's entry, or from just after a barrier, until it stops at the next barrier
// or returns. Regions may share blocks (a barrier in a loop: the loop's head is in the region
// before the loop and in the one after the barrier), so each region gets its own copy.
#include <set>
#include <string>
#include <vector>

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace hone::warp_loops {

enum class BarrierKind { shuffle, gather, block };

struct Barrier {
  llvm::CallInst* call;    // the runtime call, last before its block's branch
  BarrierKind kind;
  llvm::BasicBlock* block;  // the block it ends
  llvm::BasicBlock* after;  // where its threads go on: the start of region (its index + 1)
};

struct BarrierRegions {
  std::vector<Barrier> barriers;
  std::vector<llvm::BasicBlock*> starts;                // region 0 starts at the entry, region j + 1 after barrier j
  std::vector<std::vector<llvm::BasicBlock*>> blocks;   // per region, its start first
  std::vector<std::set<const llvm::BasicBlock*>> members;
};

/// Splits the blocks of `f` after each barrier call and finds its regions; "" on success, else
/// why the kernel runs as fibers (the splits leave its meaning unchanged either way).
/// `meets_barriers`: the functions of the module that call a barrier, directly or not.
std::string find_barrier_regions(llvm::Function& f, const std::set<const llvm::Function*>& meets_barriers,
                                 BarrierRegions& out);

/// The functions of `m` that call a barrier or a function in needs_fibers, directly or not.
std::set<const llvm::Function*> functions_meeting_barriers(llvm::Module& m);

/// The runtime functions that stop a thread until others arrive, and those a thread's view of
/// its warp depends on: a kernel calling one of the latter runs as fibers.
bool is_region_barrier(const llvm::Function* callee, BarrierKind* kind);
bool needs_fibers(const llvm::Function* callee);

}  // namespace hone::warp_loops
