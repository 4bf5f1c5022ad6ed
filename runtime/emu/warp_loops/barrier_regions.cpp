#include "barrier_regions.hpp"

#include "llvm/IR/CFG.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

namespace hone::warp_loops {

using namespace llvm;

bool is_region_barrier(const Function* callee, BarrierKind* kind) {
  if (!callee) return false;
  const StringRef name = callee->getName();
  if (name == "hone_emu_warp_shuffle") {
    *kind = BarrierKind::shuffle;
    return true;
  }
  if (name == "hone_emu_warp_gather") {
    *kind = BarrierKind::gather;
    return true;
  }
  if (name == "hone_emu_syncthreads") {
    *kind = BarrierKind::block;
    return true;
  }
  return false;
}

// __activemask sees which lanes happen to be with the caller, cluster.sync() waits for other
// blocks: left to the fiber scheduler.
bool needs_fibers(const Function* callee) {
  if (!callee) return false;
  const StringRef name = callee->getName();
  return name == "hone_emu_activemask" || name == "hone_emu_cluster_sync" || name.startswith("hone_emu_wl_");
}

std::set<const Function*> functions_meeting_barriers(Module& m) {
  std::set<const Function*> meets;
  for (bool grew = true; grew;) {
    grew = false;
    for (Function& f : m) {
      if (f.isDeclaration() || meets.count(&f)) continue;
      for (Instruction& i : instructions(f)) {
        const auto* call = dyn_cast<CallBase>(&i);
        if (!call) continue;
        const Function* callee = call->getCalledFunction();
        BarrierKind kind;
        if (is_region_barrier(callee, &kind) || needs_fibers(callee) || meets.count(callee)) {
          meets.insert(&f);
          grew = true;
          break;
        }
      }
    }
  }
  return meets;
}

std::string find_barrier_regions(Function& f, const std::set<const Function*>& meets_barriers, BarrierRegions& out) {
  removeUnreachableBlocks(f);
  std::vector<std::pair<CallInst*, BarrierKind>> calls;
  for (Instruction& i : instructions(f)) {
    if (isa<InvokeInst>(i) || isa<CallBrInst>(i)) return "it has exception-handling or asm-goto edges";
    if (const auto* a = dyn_cast<AllocaInst>(&i); a && (!a->isStaticAlloca() || a->getParent() != &f.getEntryBlock()))
      return "it allocates on the stack at run time";
    auto* call = dyn_cast<CallInst>(&i);
    if (!call || call->isInlineAsm()) continue;
    const Function* callee = call->getCalledFunction();
    if (!callee) return "it calls through a pointer";
    BarrierKind kind;
    if (is_region_barrier(callee, &kind)) calls.push_back({call, kind});
    else if (needs_fibers(callee)) return "it calls " + callee->getName().str();
    else if (meets_barriers.count(callee)) return "it calls " + callee->getName().str() + ", which meets a barrier";
  }
  if (calls.empty()) return "it has no barrier";

  std::set<const BasicBlock*> barrier_blocks;
  out.starts.push_back(&f.getEntryBlock());
  for (auto [call, kind] : calls) {
    BasicBlock* after = SplitBlock(call->getParent(), call->getNextNode());
    out.barriers.push_back({call, kind, call->getParent(), after});
    out.starts.push_back(after);
    barrier_blocks.insert(call->getParent());
  }
  // A region runs on from its start through every block it reaches, up to the barriers it meets.
  for (BasicBlock* start : out.starts) {
    std::vector<BasicBlock*> region{start};
    std::set<const BasicBlock*> seen{start};
    for (std::size_t at = 0; at < region.size(); ++at) {
      if (barrier_blocks.count(region[at])) continue;
      for (BasicBlock* next : successors(region[at]))
        if (seen.insert(next).second) region.push_back(next);
    }
    out.blocks.push_back(std::move(region));
    out.members.push_back(std::move(seen));
  }
  return "";
}

}  // namespace hone::warp_loops
