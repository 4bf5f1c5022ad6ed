#include "block_scheduler.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>

#include "fault_handler.hpp"
#include "fiber_switch.hpp"
#include "schedule_order.hpp"

namespace hone::emu {

namespace {
// Thrown in a suspended kernel thread that destroy_fibers() resumes, to unwind its stack. Not a
// std::exception, so that no handler in the runtime's built-ins takes it for the kernel's own.
struct ForcedUnwind {};

std::atomic<std::uint64_t> switches_total{0};  // added once per block, not per switch
std::atomic<std::uint64_t> shuffle_records_total{0};  // likewise

std::string hex_mask(unsigned mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", mask);
  return buf;
}
// " (N MiB of address space)" when the process has such a limit (the worker's sandbox sets one).
std::string address_space_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return "";
  return " (" + std::to_string(r.rlim_cur >> 20) + " MiB of address space)";
}
std::string triple(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
template <class F>
void for_each_lane(unsigned mask, F f) {
  for (unsigned m = mask; m; m &= m - 1) f(static_cast<unsigned>(__builtin_ctz(m)));
}
}  // namespace

BlockScheduler& BlockScheduler::for_this_thread() {
  thread_local BlockScheduler scheduler;
  return scheduler;
}

BlockScheduler::BlockScheduler()
    : lanes_(new Lane[kMaxThreads]),
      queue_(kMaxThreads),
      gathered_(new Gathered[kMaxThreads / 32 * kGatheredPerWarp]),
      rings_(new ShuffleRing[kMaxThreads / 32]) {}

BlockScheduler::~BlockScheduler() = default;

// Plain order: a FIFO ring, so warps advance in step. A seeded order instead runs warps in a
// drawn order of priority, each as far as it can get (lanes in a drawn order too): the warp
// drawn first races ahead of the others, which is what exposes a missing __syncthreads between
// warps, and the lane order exposes races within a warp. The order is drawn again at every block
// barrier, so each phase of the kernel gets its own.
inline void BlockScheduler::push_ready(unsigned linear) {
  if (order_state_) ready_lanes_[linear / 32] |= 1u << (linear % 32);
  else queue_[(queue_head_ + queued_) % kMaxThreads] = linear;
  ++queued_;
}

inline unsigned BlockScheduler::pop_ready() {
  --queued_;
  if (order_state_) {
    for (unsigned k = 0; k < warps_; ++k) {
      const unsigned w = warp_order_[k];
      unsigned lanes = ready_lanes_[w];
      if (!lanes) continue;
      for (unsigned skip = static_cast<unsigned>(next_random() % static_cast<unsigned>(__builtin_popcount(lanes))); skip;
           --skip)
        lanes &= lanes - 1;
      const unsigned lane = static_cast<unsigned>(__builtin_ctz(lanes));
      ready_lanes_[w] &= ~(1u << lane);
      return w * 32 + lane;
    }
  }
  const unsigned linear = queue_[queue_head_];
  queue_head_ = (queue_head_ + 1) % kMaxThreads;
  return linear;
}

std::uint64_t BlockScheduler::next_random() { return order_state_ = mix64(order_state_); }

void BlockScheduler::draw_warp_order() {
  if (!order_state_) return;
  for (unsigned w = 0; w < warps_; ++w) warp_order_[w] = w;
  for (unsigned w = warps_; w > 1; --w) std::swap(warp_order_[w - 1], warp_order_[next_random() % w]);
}

void BlockScheduler::prepare(const BlockTask& task) {
  task_ = task;
  threads_ = task.block_dim.x * task.block_dim.y * task.block_dim.z;
  unsigned char* const smem = smem_.prepare(task.dynamic_smem);
  dynamic_smem_ = smem;
  poison_static_shared();
  order_state_ = task.schedule_seed;

  for (unsigned linear = 0; linear < threads_; ++linear) {
    Lane& lane = lanes_[linear];
    const unsigned x = linear % task.block_dim.x;
    const unsigned y = linear / task.block_dim.x % task.block_dim.y;
    const unsigned z = linear / (task.block_dim.x * task.block_dim.y);
    lane.abi.thread_idx = uint3{x, y, z};
    lane.abi.block_idx = task.block_idx;
    lane.abi.block_dim = task.block_dim;
    lane.abi.grid_dim = task.grid_dim;
    lane.abi.linear = linear;
    lane.abi.lane = linear % 32;
    lane.abi.dynamic_smem = smem;
    lane.abi.cluster_dim = task.cluster_dim;
    lane.wait = Wait::ready;
    lane.started = lane.alive = false;
    lane.held = nullptr;
    lane.shuffles = 0;
    lane.ring = &rings_[linear / 32];
  }
  for (unsigned w = 0; w < (threads_ + 31) / 32; ++w) {
    rings_[w].base = rings_[w].top = 0;
    rings_[w].waiting_slot = 0;
    rings_[w].live = warp_lanes(w);
  }
  for (unsigned g = 0; g < (threads_ + 31) / 32 * kGatheredPerWarp; ++g) gathered_[g].readers = 0;
  std::fill(std::begin(active_queries_), std::end(active_queries_), 0u);
  std::fill(std::begin(at_warp_barrier_), std::end(at_warp_barrier_), 0u);
  std::fill(std::begin(exited_lanes_), std::end(exited_lanes_), 0u);
  std::fill(std::begin(block_waiters_), std::end(block_waiters_), 0u);
  std::fill(std::begin(stopped_shuffles_), std::end(stopped_shuffles_), kNever);
  queue_head_ = 0;
  queued_ = 0;
  warps_ = (threads_ + 31) / 32;
  std::fill(std::begin(ready_lanes_), std::end(ready_lanes_), 0u);
  draw_warp_order();
  for (unsigned linear = 0; linear < threads_; ++linear) push_ready(linear);
  at_block_barrier_ = 0;
  at_cluster_barrier_ = 0;
  block_count_ = 0;
  exited_ = 0;
  first_exited_ = -1;
  faulted_ = false;
  error_.clear();
  loop_.on = false;
}

std::string intrinsic_text(const char* op, unsigned mask) { return std::string(op) + " (mask " + hex_mask(mask) + ")"; }

std::uint64_t fiber_switch_count() { return switches_total.load(std::memory_order_relaxed); }

std::uint64_t shuffle_record_count() { return shuffle_records_total.load(std::memory_order_relaxed); }

void BlockScheduler::poison_static_shared() {
  const StaticSharedLayout& s = task_.static_shared;
  if (!s.touch || s.bytes == 0) return;
  std::memset(static_cast<unsigned char*>(s.touch()) - s.offset, 0xff, s.bytes);
}

// Gives a thread that has not run yet its stack; false (and the block faulted) when there is none
// for it.
bool BlockScheduler::start_fiber(Lane& lane) {
  try {
    lane.stack = stacks_.take();
  } catch (const std::exception& e) {
    record_fault(std::string("emu runtime failure in ") + block_name() + ": " + e.what());
    return false;
  }
  lane.sp = fiber_start_frame(lane.stack.top, &BlockScheduler::fiber_entry, &lane);
  lane.started = lane.alive = true;
  return true;
}

// Makes `next` (nullptr: run()) the running context as far as the built-ins and the fault
// handler can tell; false when it cannot start.
inline bool BlockScheduler::enter(Lane* next) {
  current_ = next;
  if (!next) {
    hone_emu_self = nullptr;
    return true;
  }
  hone_emu_self = &next->abi;
  if (!next->started && !start_fiber(*next)) return false;
  const std::uintptr_t guard = guard_start(next->stack);
  set_running_stack_guard(guard, guard + guard_bytes_, stack_bytes_);
  ++switches_;
  return true;
}

// The thread to run next, or nullptr for run() (nothing can run, or the block has faulted).
inline BlockScheduler::Lane* BlockScheduler::next_ready() {
  return faulted_ || queued_ == 0 ? nullptr : &lanes_[pop_ready()];
}

// Leaves the running context for `next`; returns when some context switches back to this one. A
// kernel thread resumed only to be torn down unwinds from here.
inline void BlockScheduler::switch_to(Lane* next) {
  Lane* const from = current_;
  if (next == from) return;
  if (!enter(next)) {
    enter(next = nullptr);
    if (!from) return;  // run() itself: its loop sees the fault
  }
  hone_emu_fiber_switch(from ? &from->sp : &main_sp_, next ? next->sp : main_sp_);
  if (unwinding_ && current_) [[unlikely]]
    throw ForcedUnwind{};
}

inline void BlockScheduler::suspend() { switch_to(next_ready()); }

BlockScheduler::Gathered* BlockScheduler::free_gathered(unsigned warp) {
  Gathered* g = &gathered_[warp * kGatheredPerWarp];
  while (g->readers) ++g;  // at most 32 are held
  return g;
}

std::string BlockScheduler::run(const BlockTask& task) {
  begin(task);
  proceed();
  return end();
}

void BlockScheduler::begin(const BlockTask& task) {
  ensure_alternate_signal_stack();
  prepare(task);
}

BlockScheduler::Outcome BlockScheduler::proceed() {
  running_ = this;
  current_ = nullptr;
  smem_.activate();
  while (queued_ > 0 && !faulted_) switch_to(&lanes_[pop_ready()]);
  hone_emu_self = nullptr;
  running_ = nullptr;
  return !faulted_ && threads_ > 0 && at_cluster_barrier_ == threads_ ? Outcome::at_cluster_barrier : Outcome::finished;
}

void BlockScheduler::release_cluster_barrier() {
  at_cluster_barrier_ = 0;
  std::fill(std::begin(block_waiters_), std::end(block_waiters_), 0u);
  std::fill(std::begin(stopped_shuffles_), std::end(stopped_shuffles_), kNever);
  draw_warp_order();
  for (unsigned linear = 0; linear < threads_; ++linear) {
    lanes_[linear].wait = Wait::ready;
    push_ready(linear);
  }
}

std::string BlockScheduler::end() {
  running_ = this;
  if (!faulted_ && exited_ != threads_) diagnose_deadlock();
  destroy_fibers();
  switches_total.fetch_add(switches_, std::memory_order_relaxed);
  switches_ = 0;
  shuffle_records_total.fetch_add(shuffle_records_, std::memory_order_relaxed);
  shuffle_records_ = 0;
  current_ = nullptr;
  hone_emu_self = nullptr;
  running_ = nullptr;
  return faulted_ ? error_ : std::string();
}

void BlockScheduler::fiber_entry(void* lane) { running_->thread_main(*static_cast<Lane*>(lane)); }

// Runs the kernel on the running thread; true when destroy_fibers() resumed it only to unwind it.
// (A kernel run as warp loops may end as another thread than it began.)
bool BlockScheduler::run_kernel() {
  try {
    task_.kernel(task_.args);
  } catch (const ForcedUnwind&) {
    return true;
  } catch (const std::bad_alloc& e) {
    record_fault("the kernel ran out of memory in " + current_thread_name() + " (" +
                 e.what() + "): it allocates more than the process may use" + address_space_limit());
  } catch (const std::exception& e) {
    record_fault("the kernel threw a C++ exception in " + current_thread_name() + ": " +
                 e.what());
  } catch (...) {
    record_fault("the kernel threw a C++ exception in " + current_thread_name());
  }
  return false;
}

void BlockScheduler::thread_main(Lane& first) {
  Lane* lane = &first;
  for (;;) {
    const bool torn_down = run_kernel();
    if (loop_.on) lane = &lanes_[loop_.owner];  // it ran every thread, on this one's stack
    else if (!torn_down) on_exit(*lane);
    Lane* next = torn_down ? nullptr : next_ready();
    // A thread that has not started yet runs on from here, on the stack the ended one no longer
    // needs: no switch (a kernel without barriers runs its whole block on one stack).
    if (next && !next->started) {
      next->stack = lane->stack;
      next->started = next->alive = true;
      lane->alive = false;
      enter(next);
      lane = next;
      continue;
    }
    // This thread ends: hand over to the next thread (or run()) for good. The next one has its
    // stack; this one's goes back to the pool, which nothing takes from until the switch.
    if (!enter(next)) enter(next = nullptr);
    stacks_.give(lane->stack);
    lane->alive = false;
    void* ended;
    hone_emu_fiber_switch(&ended, next ? next->sp : main_sp_);
    __builtin_trap();
  }
}

// A thread arriving at a block-wide barrier while some thread has exited, or while lanes of its
// warp wait at a shuffle it has not come to: neither can complete.
void BlockScheduler::check_barrier_arrival(const char* barrier) {
  const Lane& me = *current_;
  if (exited_ > 0)
    fault("barrier divergence in " + block_name() + ": " + thread_name(me.abi.linear) + " waits at " + barrier +
          " but " + thread_name(static_cast<unsigned>(first_exited_)) + " has exited");
  if (const ShuffleRing& ring = rings_[me.abi.linear / 32]; me.shuffles < ring.top) {
    const ShuffleSlot& slot = ring.slots[me.shuffles % kShuffleRing];
    fault_divergence(me.abi.linear, barrier, slot.first, intrinsic_text(slot.op, slot.mask));
  }
}

// What every block-wide barrier does as a thread arrives: the checks above, then it waits.
inline void BlockScheduler::arrive_block_wide(Lane& me, Wait wait, const char* barrier) {
  release(me);
  if (exited_ > 0 || me.shuffles < rings_[me.abi.linear / 32].top) check_barrier_arrival(barrier);
  me.wait = wait;
  block_waiters_[me.abi.linear / 32] |= 1u << me.abi.lane;
  stopped_shuffles_[me.abi.linear / 32] = std::min(stopped_shuffles_[me.abi.linear / 32], me.shuffles);
}

// cluster.sync(): a block barrier that the whole cluster must reach. With no cluster (a launch is
// a cluster of one block) it completes as __syncthreads does; in a cluster the block stops there,
// and ClusterRunner releases it when every block of the cluster has stopped.
void BlockScheduler::sync_cluster() {
  Lane& me = *current_;
  arrive_block_wide(me, Wait::cluster_barrier, "cluster.sync()");
  if (++at_cluster_barrier_ == threads_) {
    if (task_.cluster_dim.x * task_.cluster_dim.y * task_.cluster_dim.z == 1) release_cluster_barrier();
  } else {
    release_active_queries(me.abi.linear / 32 * 32);
  }
  suspend();
}

int BlockScheduler::sync_block(int predicate) {
  Lane& me = *current_;
  arrive_block_wide(me, Wait::block_barrier, "__syncthreads");
  ++at_block_barrier_;
  block_count_ += predicate ? 1 : 0;
  if (at_block_barrier_ == threads_) {
    const int count = block_count_;
    at_block_barrier_ = 0;
    block_count_ = 0;
    std::fill(std::begin(block_waiters_), std::end(block_waiters_), 0u);
    std::fill(std::begin(stopped_shuffles_), std::end(stopped_shuffles_), kNever);  // and no lane has exited
    draw_warp_order();
    for (unsigned linear = 0; linear < threads_; ++linear) {
      lanes_[linear].wait = Wait::ready;
      lanes_[linear].block_result = count;
      push_ready(linear);
    }
  } else {
    release_active_queries(me.abi.linear / 32 * 32);
  }
  suspend();
  return me.block_result;
}

// The faults of a warp barrier, kept out of its hot path (their messages are long to build).
void BlockScheduler::fault_mask_without_caller(unsigned mask, const char* op) {
  const Lane& me = *current_;
  fault(std::string(op) + " in " + block_name() + " " + thread_name(me.abi.linear) + ": mask " + hex_mask(mask) +
        " does not include the calling lane " + std::to_string(me.abi.lane));
}

void BlockScheduler::fault_names_exited(unsigned mask, const char* op, unsigned gone) {
  const Lane& me = *current_;
  const unsigned base = me.abi.linear / 32 * 32;
  const unsigned l = static_cast<unsigned>(__builtin_ctz(gone));
  fault("warp intrinsic " + std::string(op) + " in " + block_name() + " " + thread_name(me.abi.linear) +
        " names lane " + std::to_string(l) + " (" + thread_name(base + l) + ") in mask " + hex_mask(mask) +
        ", but that thread has exited");
}

void BlockScheduler::fault_other_intrinsic(unsigned other) {
  const Lane& me = *current_;
  fault_divergence(me.abi.linear, wait_description(me), other, wait_description(lanes_[other]));
}

void BlockScheduler::fault_divergence(unsigned a, const std::string& at_a, unsigned b, const std::string& at_b) {
  fault("barrier divergence in " + block_name() + ": " + thread_name(a) + " waits at " + at_a + " while " +
        thread_name(b) + " waits at " + at_b);
}

const unsigned long long* BlockScheduler::warp_gather(unsigned mask, const char* op, unsigned long long value,
                                                      unsigned* group) {
  Lane& me = *current_;
  release(me);
  const unsigned base = me.abi.linear / 32 * 32;
  const unsigned warp = base / 32;
  if (!((mask >> me.abi.lane) & 1u)) fault_mask_without_caller(mask, op);
  const unsigned members = mask & warp_lanes(warp);
  if (const unsigned gone = members & exited_lanes_[warp]) fault_names_exited(mask, op, gone);
  me.wait = Wait::warp_barrier;
  if (at_warp_barrier_[warp] == 0) {
    waiting_mask_[warp] = mask;
    waiting_op_[warp] = op;
    waiting_mixed_[warp] = false;
  } else if (waiting_mask_[warp] != mask || waiting_op_[warp] != op) {
    waiting_mixed_[warp] = true;
  }
  at_warp_barrier_[warp] |= 1u << me.abi.lane;
  me.mask = mask;
  me.op = op;
  deposits_[warp][me.abi.lane] = value;

  // Per-warp bit masks keep an arrival O(1); the lanes themselves are looked at once, when the
  // last member arrives (warp intrinsics are most of the switches of a typical kernel). A
  // member waiting with another mask means no completion here (a deadlock, diagnosed when
  // nothing can run); the same mask at another intrinsic is divergence.
  if ((at_warp_barrier_[warp] & members) == members) {
    // Unmixed, every waiting lane came with this mask and intrinsic: nothing to look at.
    bool same_mask = true;
    int other_op = -1;
    if (waiting_mixed_[warp])
      for_each_lane(members, [&](unsigned l) {
        const Lane& other = lanes_[base + l];
        same_mask &= other.mask == mask;
        if (other.op != op && other_op < 0 && std::strcmp(other.op, op) != 0) other_op = static_cast<int>(base + l);
      });
    if (same_mask) {
      if (other_op >= 0) fault_other_intrinsic(static_cast<unsigned>(other_op));
      // One copy for the whole group (entries outside it are never read): a member that runs
      // on to its next warp barrier overwrites its deposit before the others have read it.
      Gathered* const g = free_gathered(warp);
      std::memcpy(g->values, deposits_[warp], sizeof g->values);
      g->readers = static_cast<unsigned>(__builtin_popcount(members));
      for_each_lane(members, [&](unsigned l) {
        Lane& other = lanes_[base + l];
        other.group = members;
        other.held = g;
        other.wait = Wait::ready;
        push_ready(base + l);
      });
      at_warp_barrier_[warp] &= ~members;
      suspend();
      *group = me.group;
      return me.held->values;
    }
  }
  release_active_queries(base);
  suspend();
  *group = me.group;
  return me.held->values;
}

inline void BlockScheduler::wake(unsigned linear) {
  lanes_[linear].wait = Wait::ready;
  push_ready(linear);
}

// Every lane has passed the oldest slot: free the slots all have passed, and let on the lanes
// that waited for one.
void BlockScheduler::retire_shuffles(ShuffleRing& ring) {
  while (ring.base < ring.top && ring.slots[ring.base % kShuffleRing].passed == ring.live) ++ring.base;
  if (const unsigned waiting = ring.waiting_slot) {
    ring.waiting_slot = 0;
    const unsigned base = current_->abi.linear / 32 * 32;
    for_each_lane(waiting, [&](unsigned l) { wake(base + l); });
  }
}

// A shuffle within part of the warp meets as a warp barrier of its members.
unsigned long long BlockScheduler::partial_shuffle(unsigned mask, const char* op, unsigned long long value, int src) {
  unsigned group;
  const unsigned long long* all = warp_gather(mask, op, value, &group);
  return src >= 0 && ((group >> src) & 1u) ? all[src] : value;
}

// A lane may exit once it has passed its last shuffle, while others are still behind it; one
// that exited before shuffle k, or waits at __syncthreads without having come to it, never will.
// Called only when some such lane has passed no more than k shuffles.
void BlockScheduler::check_shuffle_members(std::uint64_t k, unsigned mask, const char* op) {
  const Lane& me = *current_;
  const unsigned base = me.abi.linear / 32 * 32;
  for_each_lane(exited_lanes_[base / 32], [&](unsigned l) {
    if (lanes_[base + l].shuffles <= k) fault_names_exited(mask, op, 1u << l);
  });
  for_each_lane(block_waiters_[base / 32], [&](unsigned l) {
    if (lanes_[base + l].shuffles <= k)
      fault_divergence(base + l, wait_description(lanes_[base + l]), me.abi.linear, intrinsic_text(op, mask));
  });
}

// The first lane to come to shuffle k: a wait while the ring is full, the checks no later
// arrival needs (a lane that stops without having come to an open shuffle is caught where it
// stops), then the slot is set up, unless another lane came to it during the wait.
void BlockScheduler::open_shuffle(ShuffleRing& ring, std::uint64_t k, unsigned mask, const char* op) {
  Lane& me = *current_;
  const unsigned warp = me.abi.linear / 32;
  while (k >= ring.base + kShuffleRing) {
    me.wait = Wait::warp_barrier;
    me.mask = mask;
    me.op = op;
    ring.waiting_slot |= 1u << me.abi.lane;
    release_active_queries(warp * 32);
    suspend();
  }
  if (k >= stopped_shuffles_[warp]) check_shuffle_members(k, mask, op);
  ShuffleSlot& slot = ring.slots[k % kShuffleRing];
  if (k != ring.top) {
    check_same_shuffle(slot, mask, op);
    return;
  }
  ++ring.top;
  slot.op = op;
  slot.mask = mask;
  slot.first = me.abi.linear;
  slot.arrived = slot.passed = slot.waited = 0;
}

void BlockScheduler::check_same_shuffle(const ShuffleSlot& slot, unsigned mask, const char* op) {
  if (slot.mask == mask && std::strcmp(slot.op, op) == 0) return;
  fault_divergence(current_->abi.linear, intrinsic_text(op, mask), slot.first, intrinsic_text(slot.op, slot.mask));
}

// `lane` has deposited: the lanes that wait to read it go on.
void BlockScheduler::wake_readers(ShuffleSlot& slot, unsigned lane) {
  const unsigned waiting = slot.waiting_for[lane];
  slot.waited &= ~(1u << lane);
  const unsigned base = current_->abi.linear / 32 * 32;
  for_each_lane(waiting, [&](unsigned l) { wake(base + l); });
}

// The running lane reads lane `src`, which has not come to this shuffle yet.
void BlockScheduler::wait_for_value(ShuffleSlot& slot, unsigned src) {
  Lane& me = *current_;
  me.wait = Wait::warp_barrier;
  me.mask = slot.mask;
  me.op = slot.op;
  const unsigned bit = 1u << src;
  if (!(slot.waited & bit)) {
    slot.waited |= bit;
    slot.waiting_for[src] = 0;
  }
  slot.waiting_for[src] |= 1u << me.abi.lane;
  release_active_queries(me.abi.linear / 32 * 32);
  suspend();
}

// A lane at shuffle k, open with its mask and intrinsic: deposit, read the source's value once it
// is there, pass on.
inline unsigned long long BlockScheduler::shuffle_open(Lane& me, ShuffleSlot& slot, std::uint64_t k,
                                                       unsigned long long value, int src) {
  const unsigned lane = me.abi.lane;
  const unsigned bit = 1u << lane;
  slot.values[lane] = value;
  slot.arrived |= bit;
  if (slot.waited & bit) [[unlikely]]
    wake_readers(slot, lane);
  unsigned long long result = value;
  ShuffleRing& ring = *me.ring;
  const unsigned from = static_cast<unsigned>(src);
  if (from < 32 && from != lane && ((ring.live >> from) & 1u)) {
    if (!((slot.arrived >> from) & 1u)) wait_for_value(slot, from);
    result = slot.values[from];
  }
  me.shuffles = k + 1;
  slot.passed |= bit;
  if (slot.passed == ring.live && ring.base == k) [[unlikely]]
    retire_shuffles(ring);
  return result;
}

// What the hot path leaves: a mask short of the warp, values of a warp barrier still held, the
// first lane at a shuffle, or a lane whose mask or intrinsic differs from the first's.
unsigned long long BlockScheduler::shuffle_rare(unsigned mask, const char* op, unsigned long long value, int src) {
  Lane& me = *current_;
  ShuffleRing& ring = *me.ring;
  if ((mask & ring.live) != ring.live) return partial_shuffle(mask, op, value, src);
  release(me);
  const std::uint64_t k = me.shuffles;
  ShuffleSlot& slot = ring.slots[k % kShuffleRing];
  if (k >= ring.top) open_shuffle(ring, k, mask, op);
  else check_same_shuffle(slot, mask, op);
  return shuffle_open(me, slot, k, value, src);
}

// Every lane but the first to come to a shuffle finds it open with its own mask and intrinsic (so
// the mask names the whole warp: the first lane checked that), and most hold no values of a warp
// barrier: for them a shuffle is a few loads and stores, unless it waits.
unsigned long long BlockScheduler::warp_shuffle(unsigned mask, const char* op, unsigned long long value, int src) {
  Lane& me = *current_;
  ShuffleRing& ring = *me.ring;
  const std::uint64_t k = me.shuffles;
  ShuffleSlot& slot = ring.slots[k % kShuffleRing];
  if (k >= ring.top || slot.mask != mask || slot.op != op || me.held) [[unlikely]]
    return shuffle_rare(mask, op, value, src);
  return shuffle_open(me, slot, k, value, src);
}

unsigned BlockScheduler::active_mask() {
  // Lanes in lockstep are those that reach this point together: the caller waits until every
  // other lane of its warp has arrived here too, exited, or blocked at a barrier, and gets the
  // set that arrived.
  Lane& me = *current_;
  release(me);
  me.wait = Wait::active_query;
  ++active_queries_[me.abi.linear / 32];
  release_active_queries(me.abi.linear / 32 * 32);
  suspend();
  return me.group;
}

void BlockScheduler::release_active_queries(unsigned base) {
  if (active_queries_[base / 32] == 0) return;
  unsigned waiting = 0;
  bool settled = true;
  for_each_lane(warp_lanes(base / 32), [&](unsigned l) {
    const Wait w = lanes_[base + l].wait;
    if (w == Wait::active_query) waiting |= 1u << l;
    if (w == Wait::ready) settled = false;
  });
  if (!settled || !waiting) return;
  active_queries_[base / 32] = 0;
  for_each_lane(waiting, [&](unsigned l) {
    Lane& lane = lanes_[base + l];
    lane.group = waiting;
    lane.wait = Wait::ready;
    push_ready(base + l);
  });
}

void BlockScheduler::fault(const std::string& reason) {
  if (loop_.on) {
    loop_current();
    adopt_loop_stack();
  }
  record_fault(reason);
  current_->wait = Wait::faulted;
  switch_to(nullptr);
  // Never resumed: run() tears the fiber down, which unwinds out of suspend().
  std::abort();
}

std::string BlockScheduler::current_thread_name() const {
  return block_name() + " " + thread_name(loop_.on ? hone_emu_self->linear : current_->abi.linear);
}

void BlockScheduler::on_exit(Lane& lane) {
  release(lane);
  lane.wait = Wait::exited;
  exited_lanes_[lane.abi.linear / 32] |= 1u << lane.abi.lane;
  stopped_shuffles_[lane.abi.linear / 32] = std::min(stopped_shuffles_[lane.abi.linear / 32], lane.shuffles);
  ++exited_;
  if (first_exited_ < 0) first_exited_ = static_cast<int>(lane.abi.linear);
  if (at_block_barrier_ > 0 || at_cluster_barrier_ > 0) {
    for (unsigned linear = 0; linear < threads_; ++linear)
      if (lanes_[linear].wait == Wait::block_barrier || lanes_[linear].wait == Wait::cluster_barrier) {
        record_fault("barrier divergence in " + block_name() + ": " + thread_name(lane.abi.linear) + " exited while " +
                     thread_name(linear) + " waits at " + wait_description(lanes_[linear]));
        return;
      }
  }
  const unsigned base = lane.abi.linear / 32 * 32;
  const ShuffleRing& ring = rings_[base / 32];
  if (lane.shuffles < ring.top) {
    const ShuffleSlot& slot = ring.slots[lane.shuffles % kShuffleRing];
    record_fault("warp intrinsic " + std::string(slot.op) + " in " + block_name() + " " + thread_name(slot.first) +
                 " names lane " + std::to_string(lane.abi.lane) + " (" + thread_name(lane.abi.linear) + ") in mask " +
                 hex_mask(slot.mask) + ", but that thread has exited");
    return;
  }
  release_active_queries(base);
  if (at_warp_barrier_[base / 32] == 0) return;
  for_each_lane(warp_lanes(base / 32), [&](unsigned l) {
    const Lane& other = lanes_[base + l];
    if (other.wait == Wait::warp_barrier && ((other.mask >> lane.abi.lane) & 1u))
      record_fault("warp intrinsic " + std::string(other.op) + " in " + block_name() + " " + thread_name(base + l) +
                   " names lane " + std::to_string(lane.abi.lane) + " (" + thread_name(lane.abi.linear) +
                   ") in mask " + hex_mask(other.mask) + ", but that thread has exited");
  });
}

void BlockScheduler::record_fault(const std::string& reason) {
  if (faulted_) return;
  faulted_ = true;
  error_ = reason;
}

void BlockScheduler::diagnose_deadlock() {
  const Lane* at_block = nullptr;
  const Lane* at_warp = nullptr;
  const Lane* at_cluster = nullptr;
  for (unsigned linear = 0; linear < threads_; ++linear) {
    const Lane& lane = lanes_[linear];
    if (!at_block && lane.wait == Wait::block_barrier) at_block = &lane;
    if (!at_warp && lane.wait == Wait::warp_barrier) at_warp = &lane;
    if (!at_cluster && lane.wait == Wait::cluster_barrier) at_cluster = &lane;
  }
  const std::string prefix = "barrier divergence in " + block_name() + ": ";
  if (at_cluster && (at_block || at_warp)) {
    const Lane& other = at_block ? *at_block : *at_warp;
    record_fault(prefix + thread_name(at_cluster->abi.linear) + " waits at cluster.sync() while " +
                 thread_name(other.abi.linear) + " waits at " + wait_description(other));
    return;
  }
  if (at_block && at_warp) {
    record_fault(prefix + thread_name(at_block->abi.linear) + " waits at __syncthreads while " +
                 thread_name(at_warp->abi.linear) + " waits at " + wait_description(*at_warp));
    return;
  }
  if (at_warp) {
    // Some lane named in a waiting mask is elsewhere: at a different warp barrier.
    for (unsigned linear = 0; linear < threads_ && !faulted_; ++linear) {
      const Lane& waiter = lanes_[linear];
      if (waiter.wait != Wait::warp_barrier) continue;
      const unsigned base = linear / 32 * 32;
      for_each_lane(waiter.mask & warp_lanes(base / 32), [&](unsigned l) {
        const Lane& other = lanes_[base + l];
        if (faulted_ || (other.wait == Wait::warp_barrier && other.mask == waiter.mask &&
                         std::strcmp(other.op, waiter.op) == 0))
          return;
        record_fault(prefix + thread_name(linear) + " waits at " + wait_description(waiter) + " while " +
                     thread_name(base + l) + " waits at " + wait_description(other));
      });
    }
    if (!faulted_)
      record_fault(prefix + "warp barriers can never complete; " + thread_name(at_warp->abi.linear) + " waits at " +
                   wait_description(*at_warp));
    return;
  }
  record_fault(prefix + (at_block ? thread_name(at_block->abi.linear) + " waits at __syncthreads" : "threads are stuck") +
               " and not every thread of the block can arrive");
}

// Each thread still suspended (a fault or a deadlock ended the block) is resumed once to unwind its
// stack, so that what its frames hold is released, and comes back here.
void BlockScheduler::destroy_fibers() {
  unwinding_ = true;
  for (unsigned linear = 0; linear < threads_; ++linear)
    if (lanes_[linear].alive) switch_to(&lanes_[linear]);
  unwinding_ = false;
}

std::string BlockScheduler::block_name() const {
  return "block " + triple(task_.block_idx.x, task_.block_idx.y, task_.block_idx.z);
}

std::string BlockScheduler::thread_name(unsigned linear) const {
  const uint3& t = lanes_[linear].abi.thread_idx;
  return "thread " + triple(t.x, t.y, t.z);
}

std::string BlockScheduler::wait_description(const Lane& lane) const {
  switch (lane.wait) {
    case Wait::warp_barrier: return intrinsic_text(lane.op, lane.mask);
    case Wait::block_barrier: return "__syncthreads";
    case Wait::cluster_barrier: return "cluster.sync()";
    case Wait::active_query: return "__activemask";
    case Wait::exited: return "nothing (it has exited)";
    default: return "nothing (it is running)";
  }
}

}  // namespace hone::emu
