#pragma once
// Rewrites a kernel's trampoline so that one call runs every thread of the block: each region
// between two barriers becomes a loop over the lanes of a warp, each stretch between block
// barriers a loop over the warps, in the order the runtime draws. A value that lives across a
// barrier, and every stack variable, moves to the thread's slot of a frame the runtime owns. A
// shuffle becomes a deposit at the end of one region and a read at the start of the next, a
// __syncthreads the same around the warp loop: the runtime makes every check it makes for
// fibers, without a context switch.
#include <set>
#include <string>

#include "llvm/IR/Function.h"

namespace hone::warp_loops {

/// "" when `f` now runs as loops; else why not (and `f` means what it meant).
std::string run_as_warp_loops(llvm::Function& f, const std::set<const llvm::Function*>& meets_barriers);

}  // namespace hone::warp_loops
