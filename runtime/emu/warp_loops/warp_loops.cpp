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
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
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
constexpr unsigned kFrameAt = 0, kThreadsAt = 8, kResultsAt = 16, kWarpAt = 24, kGroupSizeAt = 28, kGroupAt = 32,
                   kShufflesAt = 160;
// hone_emu_wl_shuffle_record: its size and its fields' offsets.
constexpr unsigned kRecordBytes = 24, kRecordValueAt = 0, kRecordOpAt = 8, kRecordBarrierAt = 16, kRecordSrcAt = 20;

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
using Dominators = std::map<const BasicBlock*, std::set<const BasicBlock*>>;

Dominators region_dominators(const BarrierRegions& regions, std::size_t k,
                             const std::set<const BasicBlock*>& barrier_blocks) {
  const auto& blocks = regions.blocks[k];
  const auto& members = regions.members[k];
  Dominators dom;
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
  std::vector<Dominators> dom;
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

// What the lane loops read from the block record (hone_emu_loop_block), loaded where the kernel
// begins, and the thread-local every lane's turn sets.
struct BlockRecord {
  Value* block;
  Value* frame;
  Value* threads;
  Value* results;
  Value* shuffles;  // the lanes' shuffle records, or null
  Value* self_slot;
};

Value* load_field(IRBuilder<>& b, Value* block, unsigned at, Type* type, const Twine& name) {
  Value* field = b.CreateConstGEP1_64(b.getInt8Ty(), block, at);
  return b.CreateLoad(type, b.CreatePointerCast(field, type->getPointerTo()), name);
}

BlockRecord open_block_record(IRBuilder<>& b, const WarpLoopRuntime& rt, std::uint64_t stride) {
  Module& m = *b.GetInsertBlock()->getModule();
  Type* bytes = b.getInt8PtrTy();
  BlockRecord r;
  r.block = b.CreateCall(rt.begin, {b.getInt64(stride)}, "wl.block");
  r.frame = load_field(b, r.block, kFrameAt, bytes, "wl.frame");
  r.threads = load_field(b, r.block, kThreadsAt, bytes->getPointerTo(), "wl.threads");
  r.results = load_field(b, r.block, kResultsAt, b.getInt64Ty()->getPointerTo(), "wl.results");
  r.shuffles = load_field(b, r.block, kShufflesAt, bytes, "wl.shuffles");
  GlobalVariable* self = m.getNamedGlobal("hone_emu_self");
  if (!self)
    self = new GlobalVariable(m, bytes, false, GlobalValue::ExternalLinkage, nullptr, "hone_emu_self", nullptr,
                              GlobalValue::InitialExecTLSModel);
  r.self_slot = ConstantExpr::getPointerCast(self, bytes->getPointerTo());
  return r;
}

// A loop over the group's lanes around one region's copy: each turn makes the lane the running
// thread and points `slot` at its part of the frame.
struct LaneLoop {
  BasicBlock* head;
  BasicBlock* latch;
  Value* linear;  // i64
  Value* slot;
};

LaneLoop lane_loop(Function& f, const BlockRecord& r, BasicBlock* dispatch, Value* warp, Value* lanes,
                   std::uint64_t stride, unsigned k) {
  LLVMContext& c = f.getContext();
  LaneLoop loop{BasicBlock::Create(c, "wl.lane." + Twine(k), &f), BasicBlock::Create(c, "wl.lane.next." + Twine(k), &f),
                nullptr, nullptr};
  IRBuilder<> h(loop.head);
  PHINode* i = h.CreatePHI(h.getInt32Ty(), 2, "wl.i");
  i->addIncoming(h.getInt32(0), dispatch);
  Value* group =
      h.CreatePointerCast(h.CreateConstGEP1_64(h.getInt8Ty(), r.block, kGroupAt), h.getInt32Ty()->getPointerTo());
  Value* lane = h.CreateLoad(h.getInt32Ty(), h.CreateGEP(h.getInt32Ty(), group, i));
  loop.linear = h.CreateZExt(h.CreateAdd(h.CreateMul(warp, h.getInt32(32)), lane), h.getInt64Ty(), "wl.linear");
  h.CreateStore(h.CreateLoad(h.getInt8PtrTy(), h.CreateGEP(h.getInt8PtrTy(), r.threads, loop.linear)), r.self_slot);
  loop.slot = h.CreateGEP(h.getInt8Ty(), r.frame, h.CreateMul(loop.linear, h.getInt64(stride)), "wl.slot");
  IRBuilder<> l(loop.latch);
  Value* next = l.CreateAdd(i, l.getInt32(1));
  i->addIncoming(next, loop.latch);
  l.CreateCondBr(l.CreateICmpULT(next, lanes), loop.head, dispatch);
  return loop;
}

bool whole_warp_constant(const Value* mask) {
  const auto* c = dyn_cast<ConstantInt>(mask);
  return c && c->getZExtValue() == 0xffffffffu;
}

// A post at a shuffle whose mask is the constant whole warp writes the lane's record instead of
// calling the runtime, where the block record offers the records (hone_emu_wl_shuffle_record).
// Adds the blocks it makes to `copies`.
void record_whole_warp_shuffles(SmallVector<BasicBlock*, 16>& copies, const LaneLoop& loop, const BlockRecord& r) {
  Function* post = copies.front()->getModule()->getFunction("hone_emu_wl_shuffle_post");
  if (!post) return;
  std::vector<CallInst*> posts;
  for (BasicBlock* copy : copies)
    for (Instruction& inst : *copy)
      if (auto* call = dyn_cast<CallInst>(&inst);
          call && call->getCalledFunction() == post && whole_warp_constant(call->getArgOperand(1)))
        posts.push_back(call);
  for (CallInst* call : posts) {
    IRBuilder<> b(call);
    Value* offered = b.CreateIsNotNull(r.shuffles);
    Instruction *write = nullptr, *call_instead = nullptr;
    SplitBlockAndInsertIfThenElse(offered, call, &write, &call_instead);
    BasicBlock* rest = call->getParent();
    call->moveBefore(call_instead);
    copies.append({write->getParent(), call_instead->getParent(), rest});
    IRBuilder<> w(write);
    Value* record = w.CreateGEP(w.getInt8Ty(), r.shuffles, w.CreateMul(loop.linear, w.getInt64(kRecordBytes)));
    auto field = [&](unsigned at, Value* v) {
      w.CreateStore(v, w.CreatePointerCast(w.CreateConstGEP1_64(w.getInt8Ty(), record, at), v->getType()->getPointerTo()));
    };
    field(kRecordValueAt, call->getArgOperand(3));
    field(kRecordOpAt, call->getArgOperand(2));
    field(kRecordBarrierAt, call->getArgOperand(0));
    field(kRecordSrcAt, call->getArgOperand(4));
  }
}

// Region k's own copy of its blocks, entered from the loop's head: edges from outside the region
// do not exist in it, its barriers and returns end the lane's turn, and a whole-warp shuffle's
// result is the lane's entry of the record's results. Returns the copies.
SmallVector<BasicBlock*, 16> copy_region(Function& f, const BarrierRegions& regions, std::size_t k,
                                         const LaneLoop& loop, const BlockRecord& r, const WarpLoopRuntime& rt) {
  ValueToValueMapTy map;
  SmallVector<BasicBlock*, 16> copies;
  for (BasicBlock* b : regions.blocks[k]) {
    BasicBlock* copy = CloneBasicBlock(b, map, ".r" + Twine(k), &f);
    map[b] = copy;
    copies.push_back(copy);
  }
  remapInstructionsInBlocks(copies, map);
  BranchInst::Create(copies.front(), loop.head);

  const std::set<const BasicBlock*> in_copy(copies.begin(), copies.end());
  Function* take = f.getParent()->getFunction("hone_emu_wl_shuffle_take");
  for (BasicBlock* copy : copies) {
    for (PHINode& phi : copy->phis())
      for (unsigned n = phi.getNumIncomingValues(); n-- > 0;)
        if (!in_copy.count(phi.getIncomingBlock(n))) phi.removeIncomingValue(n, false);
    for (Instruction& inst : make_early_inc_range(*copy))
      if (auto* call = dyn_cast<CallInst>(&inst); call && take && call->getCalledFunction() == take) {
        IRBuilder<> b(call);
        Type* i64 = b.getInt64Ty();
        call->replaceAllUsesWith(b.CreateLoad(i64, b.CreateGEP(i64, r.results, loop.linear)));
        call->eraseFromParent();
      }
    if (auto* ret = dyn_cast<ReturnInst>(copy->getTerminator())) {
      CallInst::Create(rt.exit, "", ret);
      BranchInst::Create(loop.latch, ret);
      ret->eraseFromParent();
    }
  }
  for (const Barrier& b : regions.barriers)
    if (regions.members[k].count(b.block)) {
      auto* copy = cast<BasicBlock>(map[b.block]);
      copy->getTerminator()->eraseFromParent();
      BranchInst::Create(loop.latch, copy);
    }
  record_whole_warp_shuffles(copies, loop, r);
  return copies;
}

// Every stack slot becomes the running thread's part of the frame, in each region's copy.
void move_slots_to_frame(const std::vector<FrameSlot>& slots, const std::map<const BasicBlock*, Value*>& slot_of) {
  for (const FrameSlot& s : slots) {
    std::map<Value*, Value*> in_region;
    for (Use& u : make_early_inc_range(s.alloca->uses())) {
      Value* base = slot_of.at(use_block(u));
      Value*& p = in_region[base];
      if (!p) {
        IRBuilder<> b(cast<Instruction>(base)->getNextNode());
        p = b.CreatePointerCast(b.CreateConstGEP1_64(b.getInt8Ty(), base, s.offset), s.alloca->getType());
      }
      u.set(p);
    }
    s.alloca->eraseFromParent();
  }
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
  BarrierTypes types{};
  for (const Barrier& b : regions.barriers) types[static_cast<int>(b.kind)] = b.call->getFunctionType();
  const WarpLoopRuntime rt = declare_runtime(m, types);
  split_barrier_calls(regions, rt);
  demote_values_across_regions(f, regions);
  erase_lifetime_markers(f);

  // The stack slots move to a block of their own, where the kernel opens the block record.
  std::vector<BasicBlock*> originals;
  for (BasicBlock& b : f) originals.push_back(&b);
  BasicBlock* entry = BasicBlock::Create(c, "wl.entry", &f, &f.getEntryBlock());
  for (Instruction& i : make_early_inc_range(*originals.front()))
    if (isa<AllocaInst>(i)) i.moveBefore(*entry, entry->end());
  std::vector<FrameSlot> slots;
  const std::uint64_t stride = lay_out_frame(*entry, slots);
  IRBuilder<> at_entry(entry);
  const BlockRecord record = open_block_record(at_entry, rt, stride);

  // The dispatch: the runtime names the region to run next and the group of lanes to run it for.
  BasicBlock* dispatch = BasicBlock::Create(c, "wl.dispatch", &f);
  BasicBlock* done = BasicBlock::Create(c, "wl.done", &f);
  at_entry.CreateBr(dispatch);
  IRBuilder<> d(dispatch);
  Value* region = d.CreateCall(rt.next, {}, "wl.region");
  Value* warp = load_field(d, record.block, kWarpAt, d.getInt32Ty(), "wl.warp");
  Value* lanes = load_field(d, record.block, kGroupSizeAt, d.getInt32Ty(), "wl.lanes");
  SwitchInst* to_region = d.CreateSwitch(region, done, static_cast<unsigned>(regions.starts.size()));
  IRBuilder<>(done).CreateRetVoid();

  std::map<const BasicBlock*, Value*> slot_of;  // a block of a region's copy -> the lane's slot
  for (std::size_t k = 0; k < regions.starts.size(); ++k) {
    const LaneLoop loop = lane_loop(f, record, dispatch, warp, lanes, stride, static_cast<unsigned>(k));
    to_region->addCase(d.getInt32(static_cast<std::uint32_t>(k)), loop.head);
    for (BasicBlock* copy : copy_region(f, regions, k, loop, record, rt)) slot_of[copy] = loop.slot;
  }
  for (BasicBlock* b : originals) b->dropAllReferences();
  for (BasicBlock* b : originals) b->eraseFromParent();
  if (Function* take = m.getFunction("hone_emu_wl_shuffle_take"); take && take->use_empty()) take->eraseFromParent();
  move_slots_to_frame(slots, slot_of);

  std::string problem;
  raw_string_ostream out(problem);
  if (verifyFunction(f, &out)) report_fatal_error(Twine("hone-warp-loops broke ") + f.getName() + ": " + out.str());
  return "";
}

}  // namespace hone::warp_loops
