#pragma once
// Where a kernel's barriers cut it, when every thread meets every barrier in the same order: the
// barrier calls each end a block, and the blocks between two barriers form a region that every
// thread runs from one entry to one exit. A kernel whose barriers are not like that (a barrier
// in a loop, behind a branch, or a thread that can return before one) has no regions, and emu
// runs it as fibers.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace hone::warp_loops {

enum class BarrierKind { shuffle, block };

struct Barrier {
  llvm::CallInst* call;       // the runtime call, last before its block's branch
  BarrierKind kind;
  llvm::BasicBlock* after;    // where the threads go on: the first block of the next region
};

struct BarrierRegions {
  std::vector<Barrier> barriers;                  // in the order every thread meets them
  std::vector<llvm::BasicBlock*> starts;          // region k begins at starts[k]; barriers.size() + 1 of them
  std::map<const llvm::BasicBlock*, unsigned> region_of;
};

/// Splits the blocks of `f` after each barrier call and finds its regions; "" on success, else
/// why the kernel is not cut this way (the splits leave its meaning unchanged either way).
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
