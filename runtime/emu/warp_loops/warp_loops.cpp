#include "warp_loops.hpp"

#include "barrier_regions.hpp"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Local.h"

namespace hone::warp_loops {

using namespace llvm;

namespace {

// The runtime's side (hone_emu/abi.h), declared in the kernel's module.
struct WarpLoopRuntime {
  FunctionCallee begin, warps, lanes, enter, shuffle_post, shuffle_take, sync_post, sync_take, sync_done;
};

WarpLoopRuntime declare_runtime(Module& m, FunctionType* shuffle, FunctionType* sync) {
  LLVMContext& c = m.getContext();
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Type* none = Type::getVoidTy(c);
  WarpLoopRuntime rt;
  rt.begin = m.getOrInsertFunction("hone_emu_wl_begin", Type::getInt8PtrTy(c), i64);
  rt.warps = m.getOrInsertFunction("hone_emu_wl_warps", i32);
  rt.lanes = m.getOrInsertFunction("hone_emu_wl_lanes", i32, i32);
  rt.enter = m.getOrInsertFunction("hone_emu_wl_enter", i32, i32, i32);
  if (shuffle) {
    // The shuffle's parity goes first: a lane posts shuffle k in the region where it reads k - 1.
    std::vector<Type*> post{i32};
    post.insert(post.end(), shuffle->param_begin(), shuffle->param_end());
    rt.shuffle_post = m.getOrInsertFunction("hone_emu_wl_shuffle_post", FunctionType::get(none, post, false));
    rt.shuffle_take = m.getOrInsertFunction("hone_emu_wl_shuffle_take", FunctionType::get(shuffle->getReturnType(), {i32}, false));
  }
  if (sync) {
    rt.sync_post = m.getOrInsertFunction("hone_emu_wl_sync_post", FunctionType::get(none, sync->params(), false));
    rt.sync_take = m.getOrInsertFunction("hone_emu_wl_sync_take", FunctionType::get(sync->getReturnType(), false));
    rt.sync_done = m.getOrInsertFunction("hone_emu_wl_sync_done", none);
  }
  return rt;
}

const BasicBlock* use_block(const Use& u) {
  const auto* user = cast<Instruction>(u.getUser());
  if (const auto* phi = dyn_cast<PHINode>(user)) return phi->getIncomingBlock(u);
  return user->getParent();
}

// Each barrier call becomes a deposit where it was and a read where the threads go on.
void split_barrier_calls(BarrierRegions& regions, const WarpLoopRuntime& rt) {
  unsigned shuffles = 0;
  for (Barrier& b : regions.barriers) {
    const bool shuffle = b.kind == BarrierKind::shuffle;
    std::vector<Value*> args, take_args;
    if (shuffle) {
      Value* parity = ConstantInt::get(Type::getInt32Ty(b.call->getContext()), shuffles++ % 2);
      args.push_back(parity);
      take_args.push_back(parity);
    }
    args.insert(args.end(), b.call->arg_begin(), b.call->arg_end());
    IRBuilder<>(b.call).CreateCall(shuffle ? rt.shuffle_post : rt.sync_post, args);
    Value* result =
        IRBuilder<>(&*b.after->getFirstInsertionPt()).CreateCall(shuffle ? rt.shuffle_take : rt.sync_take, take_args);
    b.call->replaceAllUsesWith(result);
    b.call->eraseFromParent();
    b.call = nullptr;
  }
}

// A value used in another region than its own goes through a stack slot (which becomes the
// thread's slot of the frame).
void demote_values_across_regions(Function& f, const BarrierRegions& regions) {
  std::vector<Instruction*> crossing;
  for (Instruction& i : instructions(f)) {
    if (isa<AllocaInst>(i)) continue;
    const unsigned home = regions.region_of.at(i.getParent());
    for (const Use& u : i.uses())
      if (regions.region_of.at(use_block(u)) != home) {
        crossing.push_back(&i);
        break;
      }
  }
  for (Instruction* i : crossing) DemoteRegToStack(*i);
}

struct FrameSlot {
  AllocaInst* alloca;
  std::uint64_t offset;
};

// Lays the stack slots out one after another; returns the bytes a thread needs (0: none).
std::uint64_t lay_out_frame(Function& f, std::vector<FrameSlot>& slots) {
  const DataLayout& layout = f.getParent()->getDataLayout();
  std::uint64_t end = 0;
  for (Instruction& i : f.getEntryBlock())
    if (auto* a = dyn_cast<AllocaInst>(&i)) {
      const std::uint64_t bytes = *a->getAllocationSizeInBits(layout) / 8;
      const std::uint64_t at = alignTo(end, a->getAlign());
      slots.push_back({a, at});
      end = at + bytes;
    }
  return alignTo(end, 64);
}

void erase_lifetime_markers(Function& f) {
  std::vector<Instruction*> markers;
  for (Instruction& i : instructions(f))
    if (const auto* ii = dyn_cast<IntrinsicInst>(&i))
      if (ii->isLifetimeStartOrEnd()) markers.push_back(&i);
  for (Instruction* i : markers) i->eraseFromParent();
}

}  // namespace

std::string run_as_warp_loops(Function& f, const std::set<const Function*>& meets_barriers) {
  if (!f.getReturnType()->isVoidTy()) return "it returns a value";
  for (Instruction& i : f.getEntryBlock())
    if (auto* a = dyn_cast<AllocaInst>(&i); a && a->getAlign().value() > 64)
      return "a stack variable is aligned to more than 64 bytes";
  BarrierRegions regions;
  if (std::string why = find_barrier_regions(f, meets_barriers, regions); !why.empty()) return why;

  Module& m = *f.getParent();
  LLVMContext& c = m.getContext();
  FunctionType* shuffle = nullptr;
  FunctionType* sync = nullptr;
  for (const Barrier& b : regions.barriers) (b.kind == BarrierKind::shuffle ? shuffle : sync) = b.call->getFunctionType();
  const WarpLoopRuntime rt = declare_runtime(m, shuffle, sync);

  split_barrier_calls(regions, rt);
  demote_values_across_regions(f, regions);
  std::vector<FrameSlot> slots;
  const std::uint64_t stride = lay_out_frame(f, slots);
  erase_lifetime_markers(f);

  // The loops: a warp loop per stretch between block barriers, in it a lane loop per region.
  std::vector<ReturnInst*> rets;
  for (BasicBlock& b : f)
    if (auto* r = dyn_cast<ReturnInst>(b.getTerminator())) rets.push_back(r);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  const unsigned last = static_cast<unsigned>(regions.barriers.size());
  BasicBlock* entry = BasicBlock::Create(c, "wl.entry", &f, &f.getEntryBlock());
  IRBuilder<> at_entry(entry);
  Value* frame = at_entry.CreateCall(rt.begin, {ConstantInt::get(i64, stride)}, "wl.frame");
  Value* warps = at_entry.CreateCall(rt.warps, {}, "wl.warps");

  std::vector<BasicBlock*> lane_heads, lane_latches;
  std::vector<Value*> bases;
  std::vector<PHINode*> lane_index;
  for (unsigned k = 0; k <= last; ++k) {
    lane_heads.push_back(BasicBlock::Create(c, "wl.lane." + Twine(k), &f, regions.starts[k]));
    lane_latches.push_back(BasicBlock::Create(c, "wl.lane.next." + Twine(k), &f));
  }

  BasicBlock* into = entry;  // the block that falls into the next warp loop
  Value* lanes = nullptr;
  PHINode* warp = nullptr;
  BasicBlock* warp_head = nullptr;
  BasicBlock* before_lanes = nullptr;  // the block that falls into the next lane loop
  for (unsigned k = 0; k <= last; ++k) {
    if (k == 0 || regions.barriers[k - 1].kind == BarrierKind::block) {
      warp_head = BasicBlock::Create(c, "wl.warp." + Twine(k), &f, lane_heads[k]);
      IRBuilder<> b(warp_head);
      warp = b.CreatePHI(i32, 2, "wl.w");
      warp->addIncoming(ConstantInt::get(i32, 0), into);
      lanes = b.CreateCall(rt.lanes, {warp}, "wl.lanes");
      b.CreateBr(lane_heads[k]);
      IRBuilder<>(into).CreateBr(warp_head);
      before_lanes = warp_head;
    }
    IRBuilder<> head(lane_heads[k]);
    PHINode* i = head.CreatePHI(i32, 2, "wl.i");
    i->addIncoming(ConstantInt::get(i32, 0), before_lanes);
    Value* linear = head.CreateCall(rt.enter, {warp, i}, "wl.linear");
    bases.push_back(head.CreateGEP(Type::getInt8Ty(c), frame,
                                   head.CreateMul(head.CreateZExt(linear, i64), ConstantInt::get(i64, stride)),
                                   "wl.slot"));
    head.CreateBr(regions.starts[k]);
    lane_index.push_back(i);

    // The region's end goes to its latch instead of the next region or the caller.
    if (k < last) {
      BasicBlock* barrier_block = regions.barriers[k].after->getSinglePredecessor();
      barrier_block->getTerminator()->replaceUsesOfWith(regions.barriers[k].after, lane_latches[k]);
    } else {
      for (ReturnInst* r : rets) {
        BranchInst::Create(lane_latches[k], r);
        r->eraseFromParent();
      }
    }

    IRBuilder<> latch(lane_latches[k]);
    Value* next = latch.CreateAdd(i, ConstantInt::get(i32, 1));
    i->addIncoming(next, lane_latches[k]);
    const bool warp_ends = k == last || regions.barriers[k].kind == BarrierKind::block;
    if (!warp_ends) {
      latch.CreateCondBr(latch.CreateICmpULT(next, lanes), lane_heads[k], lane_heads[k + 1]);
      before_lanes = lane_latches[k];
      continue;
    }
    BasicBlock* warp_latch = BasicBlock::Create(c, "wl.warp.next." + Twine(k), &f);
    latch.CreateCondBr(latch.CreateICmpULT(next, lanes), lane_heads[k], warp_latch);
    IRBuilder<> wl(warp_latch);
    Value* next_warp = wl.CreateAdd(warp, ConstantInt::get(i32, 1));
    warp->addIncoming(next_warp, warp_latch);
    BasicBlock* done = BasicBlock::Create(c, "wl.warps.done." + Twine(k), &f);
    wl.CreateCondBr(wl.CreateICmpULT(next_warp, warps), warp_head, done);
    IRBuilder<> d(done);
    if (k == last) {
      d.CreateRetVoid();
    } else {
      d.CreateCall(rt.sync_done);
      into = done;
    }
  }

  // Every stack slot becomes the running thread's slot of the frame.
  for (const FrameSlot& s : slots) {
    std::map<unsigned, Value*> in_region;
    for (Use& u : make_early_inc_range(s.alloca->uses())) {
      const unsigned k = regions.region_of.at(use_block(u));
      Value*& p = in_region[k];
      if (!p) {
        IRBuilder<> b(lane_heads[k]->getTerminator());
        p = b.CreatePointerCast(b.CreateConstGEP1_64(Type::getInt8Ty(c), bases[k], s.offset), s.alloca->getType());
      }
      u.set(p);
    }
    s.alloca->eraseFromParent();
  }

  std::string problem;
  raw_string_ostream out(problem);
  if (verifyFunction(f, &out)) report_fatal_error(Twine("hone-warp-loops broke ") + f.getName() + ": " + out.str());
  return "";
}

}  // namespace hone::warp_loops
