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
  if (name == "hone_emu_syncthreads") {
    *kind = BarrierKind::block;
    return true;
  }
  return false;
}

// A gather (votes, __syncwarp, match) and __activemask see which lanes are with the caller,
// cluster.sync() waits for other blocks: left to the fiber scheduler.
bool needs_fibers(const Function* callee) {
  if (!callee) return false;
  const StringRef name = callee->getName();
  return name == "hone_emu_warp_gather" || name == "hone_emu_activemask" || name == "hone_emu_cluster_sync" ||
         name.startswith("hone_emu_wl_");
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

namespace {

bool returns(const BasicBlock* b) { return isa<ReturnInst>(b->getTerminator()); }

// Every path from the entry to a return passes through `b`.
bool on_every_path(const Function& f, const BasicBlock* b) {
  std::set<const BasicBlock*> seen{b};
  std::vector<const BasicBlock*> todo{&f.getEntryBlock()};
  if (b == todo.back()) return true;
  seen.insert(todo.back());
  while (!todo.empty()) {
    const BasicBlock* at = todo.back();
    todo.pop_back();
    if (returns(at)) return false;
    for (const BasicBlock* next : successors(at))
      if (seen.insert(next).second) todo.push_back(next);
  }
  return true;
}

// `b` can reach itself: it is in a loop.
bool in_cycle(const BasicBlock* b) {
  std::set<const BasicBlock*> seen;
  std::vector<const BasicBlock*> todo(succ_begin(b), succ_end(b));
  while (!todo.empty()) {
    const BasicBlock* at = todo.back();
    todo.pop_back();
    if (at == b) return true;
    if (!seen.insert(at).second) continue;
    for (const BasicBlock* next : successors(at)) todo.push_back(next);
  }
  return false;
}

}  // namespace

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
  std::map<const BasicBlock*, Barrier> by_block;
  for (auto [call, kind] : calls) {
    BasicBlock* after = SplitBlock(call->getParent(), call->getNextNode());
    barrier_blocks.insert(call->getParent());
    by_block[call->getParent()] = Barrier{call, kind, after};
  }
  for (const BasicBlock* b : barrier_blocks) {
    if (in_cycle(b)) return "a barrier is in a loop";
    if (!on_every_path(f, b)) return "a thread may pass a barrier by";
  }

  // Each region runs from its start to the one barrier it reaches; a block no two regions share.
  BasicBlock* start = &f.getEntryBlock();
  for (unsigned k = 0;; ++k) {
    out.starts.push_back(start);
    const BasicBlock* reached = nullptr;
    std::vector<BasicBlock*> todo{start};
    if (out.region_of.count(start)) return "a region is entered twice";
    out.region_of[start] = k;
    while (!todo.empty()) {
      BasicBlock* at = todo.back();
      todo.pop_back();
      if (barrier_blocks.count(at)) {
        if (reached && reached != at) return "two barriers are not ordered";
        reached = at;
        continue;
      }
      for (BasicBlock* next : successors(at)) {
        auto [it, fresh] = out.region_of.insert({next, k});
        if (!fresh && it->second != k) return "a block is shared by two regions";
        if (fresh) todo.push_back(next);
      }
    }
    if (!reached) break;
    out.barriers.push_back(by_block[reached]);
    start = by_block[reached].after;
  }
  if (out.barriers.size() != calls.size()) return "a barrier lies outside the regions";
  return "";
}

}  // namespace hone::warp_loops
