#include "warp_loops.hpp"

#include <array>
#include <map>

#include "barrier_regions.hpp"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace hone::warp_loops {

using namespace llvm;

namespace {

// The runtime's side (hone_emu/abi.h), declared in the kernel's module.
struct WarpLoopRuntime {
  FunctionCallee begin, next, exit, post[3], take[3];  // post and take by BarrierKind
};

// The offsets in hone_emu_loop_block (hone_emu/abi.h) of what the loops read from it.
constexpr unsigned kFrameAt = 0, kThreadsAt = 8, kResultsAt = 16, kWarpAt = 24, kGroupSizeAt = 28, kGroupAt = 32;

// The barrier calls' types, by BarrierKind (nullptr: the kernel has none of that kind).
using BarrierTypes = std::array<FunctionType*, 3>;

WarpLoopRuntime declare_runtime(Module& m, const BarrierTypes& barrier) {
  LLVMContext& c = m.getContext();
  Type* i32 = Type::getInt32Ty(c);
  Type* none = Type::getVoidTy(c);
  WarpLoopRuntime rt;
  rt.begin = m.getOrInsertFunction("hone_emu_wl_begin", Type::getInt8PtrTy(c), Type::getInt64Ty(c));
  rt.next = m.getOrInsertFunction("hone_emu_wl_next", i32);
  rt.exit = m.getOrInsertFunction("hone_emu_wl_exit", none);
  // A post names its barrier first: the runtime resumes the lane at the region after it. A
  // gather's post leaves out where the group goes; its take writes it. A shuffle's take is a
  // stand-in, replaced by a load of the lane's result once the regions are copied.
  const char* names[3][2] = {{"hone_emu_wl_shuffle_post", "hone_emu_wl_shuffle_take"},
                             {"hone_emu_wl_gather_post", "hone_emu_wl_gather_take"},
                             {"hone_emu_wl_sync_post", "hone_emu_wl_sync_take"}};
  for (int k = 0; k < 3; ++k) {
    FunctionType* t = barrier[k];
    if (!t) continue;
    const bool gather = k == static_cast<int>(BarrierKind::gather);
    std::vector<Type*> params{i32};
    params.insert(params.end(), t->param_begin(), gather ? t->param_end() - 1 : t->param_end());
    std::vector<Type*> taken;
    if (gather) taken.push_back(t->params().back());
    rt.post[k] = m.getOrInsertFunction(names[k][0], FunctionType::get(none, params, false));
    rt.take[k] = m.getOrInsertFunction(names[k][1], FunctionType::get(t->getReturnType(), taken, false));
  }
  return rt;
}

const BasicBlock* use_block(const Use& u) {
  const auto* user = cast<Instruction>(u.getUser());
  if (const auto* phi = dyn_cast<PHINode>(user)) return phi->getIncomingBlock(u);
  return user->getParent();
}

// Each barrier call becomes a post where it was and a take where its threads go on.
void split_barrier_calls(BarrierRegions& regions, const WarpLoopRuntime& rt) {
  for (std::size_t j = 0; j < regions.barriers.size(); ++j) {
    Barrier& b = regions.barriers[j];
    const int k = static_cast<int>(b.kind);
    std::vector<Value*> args{ConstantInt::get(Type::getInt32Ty(b.call->getContext()), j)};
    args.insert(args.end(), b.call->arg_begin(), b.call->arg_end());
    std::vector<Value*> taken;
    if (b.kind == BarrierKind::gather) {
      taken.push_back(args.back());
      args.pop_back();
    }
    IRBuilder<>(b.call).CreateCall(rt.post[k], args);
    Value* result = IRBuilder<>(&*b.after->getFirstInsertionPt()).CreateCall(rt.take[k], taken);
    b.call->replaceAllUsesWith(result);
    b.call->eraseFromParent();
    b.call = nullptr;
  }
}

// Dominators within one region: which blocks every path from its start to a block passes.
std::map<const BasicBlock*, std::set<const BasicBlock*>> region_dominators(const BarrierRegions& regions, std::size_t k,
                                                                        const std::set<const BasicBlock*>& barrier_blocks) {
  const auto& blocks = regions.blocks[k];
  const auto& members = regions.members[k];
  std::map<const BasicBlock*, std::set<const BasicBlock*>> dom;
  for (const BasicBlock* b : blocks) dom[b] = b == blocks.front() ? std::set<const BasicBlock*>{b} : members;
  for (bool changed = true; changed;) {
    changed = false;
    for (const BasicBlock* b : blocks) {
      if (b == blocks.front()) continue;
      std::set<const BasicBlock*> meet;
      bool first = true;
      for (const BasicBlock* p : predecessors(b)) {
        if (!members.count(p) || barrier_blocks.count(p)) continue;  // not an edge inside the region
        if (first) meet = dom[p];
        else
          for (auto it = meet.begin(); it != meet.end();) it = dom[p].count(*it) ? std::next(it) : meet.erase(it);
        first = false;
      }
      meet.insert(b);
      if (meet != dom[b]) {
        dom[b] = std::move(meet);
        changed = true;
      }
    }
  }
  return dom;
}

// A value goes through a stack slot (which becomes the thread's slot of the frame) when some
// region that uses it does not compute it first on every path to the use.
void demote_values_across_regions(Function& f, const BarrierRegions& regions) {
  std::set<const BasicBlock*> barrier_blocks;
  for (const Barrier& b : regions.barriers) barrier_blocks.insert(b.block);
  std::vector<std::map<const BasicBlock*, std::set<const BasicBlock*>>> dom;
  for (std::size_t k = 0; k < regions.blocks.size(); ++k) dom.push_back(region_dominators(regions, k, barrier_blocks));
  std::vector<Instruction*> crossing;
  for (Instruction& i : instructions(f)) {
    if (isa<AllocaInst>(i)) continue;
    const BasicBlock* home = i.getParent();
    bool crosses = false;
    for (const Use& u : i.uses()) {
      const BasicBlock* at = use_block(u);
      for (std::size_t k = 0; k < regions.blocks.size() && !crosses; ++k)
        if (regions.members[k].count(at)) crosses = !dom[k].at(at).count(home);
      if (crosses) break;
    }
    if (crosses) crossing.push_back(&i);
  }
  // A phi stays (its region copies keep their own edges into it); its value is stored after it
  // and loaded before each use, as any other's.
  for (Instruction* i : crossing) DemoteRegToStack(*i);
}

struct FrameSlot {
  AllocaInst* alloca;
  std::uint64_t offset;
};

// Lays the stack slots out one after another; returns the bytes a thread needs.
std::uint64_t lay_out_frame(BasicBlock& entry, std::vector<FrameSlot>& slots) {
  const DataLayout& layout = entry.getModule()->getDataLayout();
  std::uint64_t end = 0;
  for (Instruction& i : entry)
    if (auto* a = dyn_cast<AllocaInst>(&i)) {
      const std::uint64_t at = alignTo(end, a->getAlign());
      slots.push_back({a, at});
      end = at + *a->getAllocationSizeInBits(layout) / 8;
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
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  BarrierTypes types{};
  for (const Barrier& b : regions.barriers) types[static_cast<int>(b.kind)] = b.call->getFunctionType();
  const WarpLoopRuntime rt = declare_runtime(m, types);

  split_barrier_calls(regions, rt);
  demote_values_across_regions(f, regions);
  erase_lifetime_markers(f);

  // The stack slots move to a block of their own, which sets up the frame.
  std::vector<BasicBlock*> originals;
  for (BasicBlock& b : f) originals.push_back(&b);
  BasicBlock* entry = BasicBlock::Create(c, "wl.entry", &f, &f.getEntryBlock());
  for (Instruction& i : make_early_inc_range(*originals.front()))
    if (isa<AllocaInst>(i)) i.moveBefore(*entry, entry->end());
  std::vector<FrameSlot> slots;
  const std::uint64_t stride = lay_out_frame(*entry, slots);
  IRBuilder<> at_entry(entry);
  Type* i8 = Type::getInt8Ty(c);
  Type* bytes = Type::getInt8PtrTy(c);
  Value* block = at_entry.CreateCall(rt.begin, {ConstantInt::get(i64, stride)}, "wl.block");
  auto field = [&](IRBuilder<>& b, unsigned at, Type* type, const Twine& name) {
    return b.CreateLoad(type, b.CreatePointerCast(b.CreateConstGEP1_64(i8, block, at), type->getPointerTo()), name);
  };
  Value* frame = field(at_entry, kFrameAt, bytes, "wl.frame");
  Value* threads = field(at_entry, kThreadsAt, bytes->getPointerTo(), "wl.threads");
  Value* results = field(at_entry, kResultsAt, i64->getPointerTo(), "wl.results");
  GlobalVariable* self = m.getNamedGlobal("hone_emu_self");
  if (!self)
    self = new GlobalVariable(m, bytes, false, GlobalValue::ExternalLinkage, nullptr, "hone_emu_self", nullptr,
                              GlobalValue::InitialExecTLSModel);
  Value* self_slot = ConstantExpr::getPointerCast(self, bytes->getPointerTo());

  // The dispatch: the runtime names the region to run next and the lanes to run it for.
  BasicBlock* dispatch = BasicBlock::Create(c, "wl.dispatch", &f);
  BasicBlock* done = BasicBlock::Create(c, "wl.done", &f);
  at_entry.CreateBr(dispatch);
  IRBuilder<> d(dispatch);
  Value* region = d.CreateCall(rt.next, {}, "wl.region");
  Value* warp = field(d, kWarpAt, i32, "wl.warp");
  Value* lanes = field(d, kGroupSizeAt, i32, "wl.lanes");
  SwitchInst* to_region = d.CreateSwitch(region, done, static_cast<unsigned>(regions.starts.size()));
  IRBuilder<>(done).CreateRetVoid();

  std::map<const BasicBlock*, Value*> base_of;  // a region copy's block -> its lane's slot
  for (std::size_t k = 0; k < regions.starts.size(); ++k) {
    BasicBlock* head = BasicBlock::Create(c, "wl.lane." + Twine(k), &f);
    BasicBlock* latch = BasicBlock::Create(c, "wl.lane.next." + Twine(k), &f);
    to_region->addCase(ConstantInt::get(cast<IntegerType>(i32), k), head);

    ValueToValueMapTy map;
    SmallVector<BasicBlock*, 16> copies;
    for (BasicBlock* b : regions.blocks[k]) {
      BasicBlock* copy = CloneBasicBlock(b, map, ".r" + Twine(k), &f);
      map[b] = copy;
      copies.push_back(copy);
    }
    remapInstructionsInBlocks(copies, map);

    IRBuilder<> h(head);
    PHINode* i = h.CreatePHI(i32, 2, "wl.i");
    i->addIncoming(ConstantInt::get(i32, 0), dispatch);
    Value* lane = h.CreateLoad(
        i32, h.CreateGEP(i32, h.CreatePointerCast(h.CreateConstGEP1_64(i8, block, kGroupAt), i32->getPointerTo()), i));
    Value* linear = h.CreateAdd(h.CreateMul(warp, ConstantInt::get(i32, 32)), lane, "wl.linear");
    Value* linear64 = h.CreateZExt(linear, i64);
    h.CreateStore(h.CreateLoad(bytes, h.CreateGEP(bytes, threads, linear64)), self_slot);
    Value* base = h.CreateGEP(i8, frame, h.CreateMul(linear64, ConstantInt::get(i64, stride)), "wl.slot");
    h.CreateBr(copies.front());
    IRBuilder<> l(latch);
    Value* next = l.CreateAdd(i, ConstantInt::get(i32, 1));
    i->addIncoming(next, latch);
    l.CreateCondBr(l.CreateICmpULT(next, lanes), head, dispatch);

    // The lane's shuffle result, where the stand-in take was.
    if (Function* take = m.getFunction("hone_emu_wl_shuffle_take"))
      for (BasicBlock* copy : copies)
        for (Instruction& inst : make_early_inc_range(*copy))
          if (auto* call = dyn_cast<CallInst>(&inst); call && call->getCalledFunction() == take) {
            IRBuilder<> b(call);
            call->replaceAllUsesWith(b.CreateLoad(i64, b.CreateGEP(i64, results, linear64)));
            call->eraseFromParent();
          }
    std::set<const BasicBlock*> in_copy(copies.begin(), copies.end());
    for (BasicBlock* copy : copies) {
      base_of[copy] = base;
      for (PHINode& phi : copy->phis())  // edges from outside the region do not exist in its copy
        for (unsigned n = phi.getNumIncomingValues(); n-- > 0;)
          if (!in_copy.count(phi.getIncomingBlock(n))) phi.removeIncomingValue(n, false);
    }
    // A copy ends at its barriers (the lane has posted) and its returns (the lane exits).
    for (const Barrier& b : regions.barriers)
      if (regions.members[k].count(b.block)) {
        auto* copy = cast<BasicBlock>(map[b.block]);
        copy->getTerminator()->eraseFromParent();
        BranchInst::Create(latch, copy);
      }
    for (BasicBlock* copy : copies)
      if (auto* r = dyn_cast<ReturnInst>(copy->getTerminator())) {
        CallInst::Create(rt.exit, "", r);
        BranchInst::Create(latch, r);
        r->eraseFromParent();
      }
  }
  for (BasicBlock* b : originals) b->dropAllReferences();
  for (BasicBlock* b : originals) b->eraseFromParent();
  if (Function* take = m.getFunction("hone_emu_wl_shuffle_take"); take && take->use_empty()) take->eraseFromParent();

  // Every stack slot becomes the running thread's slot of the frame.
  for (const FrameSlot& s : slots) {
    std::map<Value*, Value*> in_region;
    for (Use& u : make_early_inc_range(s.alloca->uses())) {
      Value* base = base_of.at(use_block(u));
      Value*& p = in_region[base];
      if (!p) {
        IRBuilder<> b(cast<Instruction>(base)->getNextNode());
        p = b.CreatePointerCast(b.CreateConstGEP1_64(Type::getInt8Ty(c), base, s.offset), s.alloca->getType());
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
