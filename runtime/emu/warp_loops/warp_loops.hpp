#pragma once
// Rewrites a kernel's trampoline so that one call runs every thread of the block: a dispatch
// loop asks the runtime which region (barrier_regions.hpp) to run next and for which lanes of a
// warp, and runs that region's own copy for each of them in turn. A value that a region uses
// without computing it first moves to a stack slot, and every stack slot to the thread's slot of
// a frame the runtime owns. A barrier becomes a post where it was and a take where its threads go
// on (a post at a shuffle of the constant whole warp: a store into the lane's record, where the
// runtime offers records); the runtime completes it, with every check it makes for fibers, and no
// context switch.
#include <set>
#include <string>

#include "llvm/IR/Function.h"

namespace hone::warp_loops {

/// "" when `f` now runs as loops; else why not (and `f` means what it meant).
std::string run_as_warp_loops(llvm::Function& f, const std::set<const llvm::Function*>& meets_barriers);

}  // namespace hone::warp_loops
