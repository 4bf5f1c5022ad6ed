// The runtime's side of a kernel compiled as warp loops (runtime/emu/warp_loops): the compiler
// cut the kernel at its barriers into regions and made it a loop that asks the runtime which
// region to run next, and for which lanes, then runs it for each of them in turn. One call of the
// kernel runs the whole block on the stack of the thread that started it; making a lane the
// running thread (the kernel sets hone_emu_self, from the block record) is all a lane's turn
// needs, and a fault hands the stack to it first, so that unwinding finds it there.
//
// The scheduling is the fiber scheduler's, a region at a time instead of a switch at a time: the
// lanes of a warp that are ready at the same region run it together; in plain order the warps
// take turns, as a FIFO of threads does; in a seeded order the first warp of a drawn order keeps
// running until it stops at __syncthreads (which exposes a missing barrier between warps), its
// lanes in a drawn order, and half the time only some of them run (so lanes drift apart at the
// shuffles). A whole-warp shuffle is no barrier: a lane goes on once the lane it reads has posted
// there. A partial shuffle or a gather (votes, __syncwarp, matches, wmma) completes when every
// lane its mask names has posted, a __syncthreads when every thread has. A lane named by a
// shuffle that has exited, a thread at __syncthreads while another has exited, lanes of one
// group at different barriers, and barriers that can never complete fault with the fiber
// scheduler's messages.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include "block_scheduler.hpp"
#include "hone_emu/abi.h"

namespace hone::emu {

// The plugin (runtime/emu/warp_loops/warp_loops.cpp) reads and writes these at fixed offsets.
static_assert(offsetof(hone_emu_loop_block, frame) == 0 && offsetof(hone_emu_loop_block, threads) == 8 &&
              offsetof(hone_emu_loop_block, results) == 16 && offsetof(hone_emu_loop_block, warp) == 24 &&
              offsetof(hone_emu_loop_block, group_size) == 28 && offsetof(hone_emu_loop_block, group) == 32 &&
              offsetof(hone_emu_loop_block, shuffles) == 160);
static_assert(sizeof(hone_emu_wl_shuffle_record) == 24 && offsetof(hone_emu_wl_shuffle_record, value) == 0 &&
              offsetof(hone_emu_wl_shuffle_record, op) == 8 && offsetof(hone_emu_wl_shuffle_record, barrier) == 16 &&
              offsetof(hone_emu_wl_shuffle_record, src) == 20);

namespace {

constexpr std::array<unsigned, 32> kLanesInOrder = [] {
  std::array<unsigned, 32> lanes{};
  for (unsigned l = 0; l < 32; ++l) lanes[l] = l;
  return lanes;
}();

}  // namespace

hone_emu_loop_block* BlockScheduler::loops_begin(std::uint64_t frame_bytes_per_thread) {
  loop_.on = true;
  loop_.owner = current_->abi.linear;
  queued_ = 0;  // the other threads never start: this one runs them all
  std::fill(std::begin(ready_lanes_), std::end(ready_lanes_), 0u);
  if (!loop_.lanes) {
    loop_.lanes.reset(new LoopLane[kMaxThreads]);
    loop_.threads.reset(new hone_emu_thread*[kMaxThreads]);
    loop_.results.reset(new unsigned long long[kMaxThreads]);
    loop_.posts.reset(new unsigned[kMaxThreads]);
    loop_.shuffle_records.reset(new hone_emu_wl_shuffle_record[kMaxThreads]);
  }
  for (unsigned linear = 0; linear < threads_; ++linear) {  // the rest is written before it is read
    LoopLane& x = loop_.lanes[linear];
    x.held = nullptr;
    x.at = loop_.posts[linear] = 0;
    x.wait = LoopWait::ready;
    loop_.threads[linear] = &lanes_[linear].abi;
    loop_.shuffle_records[linear].barrier = ~0u;
  }
  loop_.block.threads = loop_.threads.get();
  loop_.block.results = loop_.results.get();
  // A seeded order runs lanes alone and in part, where a shuffle's post is its own: every post calls.
  loop_.block.shuffles = order_state_ ? nullptr : loop_.shuffle_records.get();
  for (unsigned w = 0; w < warps_; ++w) {
    loop_.ready[w] = warp_lanes(w);
    loop_.region_of[w] = 0;
    loop_.at_shuffle[w] = 0;
    loop_.slots[w][0].k = loop_.slots[w][1].k = ~0u;
  }
  loop_.at_block = 0;
  loop_.cursor = 0;
  loop_.block.group_size = 0;
  const std::size_t bytes = frame_bytes_per_thread * threads_;
  if (bytes > loop_.frame_capacity) {
    loop_.frame.reset(static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    loop_.frame_capacity = loop_.frame ? bytes : 0;
    if (!loop_.frame) fault("emu runtime failure in " + block_name() + ": no memory for the threads' variables");
  }
  loop_.block.frame = loop_.frame.get();
  return &loop_.block;
}

inline void BlockScheduler::ready_at(unsigned linear, unsigned region) {
  LoopLane& x = loop_.lanes[linear];
  x.at = region;
  x.wait = LoopWait::ready;
  const unsigned warp = linear / 32;
  loop_.region_of[warp] = loop_.ready[warp] && loop_.region_of[warp] != region ? ~0u : region;
  loop_.ready[warp] |= 1u << (linear % 32);
}

int BlockScheduler::loops_next() {
  if (loop_.block.group_size) settle_loop_warp(loop_.block.warp);
  loop_.block.group_size = 0;
  for (unsigned n = 0; n < warps_; ++n) {
    unsigned k = order_state_ ? n : loop_.cursor + n;  // no division: this runs at every shuffle
    if (k >= warps_) k -= warps_;
    const unsigned w = order_state_ ? warp_order_[k] : k;
    const unsigned ready = loop_.ready[w];
    if (!ready) continue;
    unsigned region = loop_.region_of[w];
    unsigned taken = 0;
    if (!order_state_ && region != ~0u && ready == warp_lanes(w)) {  // the commonest turn: the whole warp, in lane order
      taken = ready;
      loop_.block.group_size = static_cast<unsigned>(__builtin_popcount(ready));
      std::memcpy(loop_.block.group, kLanesInOrder.data(), loop_.block.group_size * sizeof(unsigned));
    } else {
      if (order_state_ || region == ~0u) {
        unsigned pick = ready;
        if (order_state_)
          for (unsigned skip = static_cast<unsigned>(next_random() % static_cast<unsigned>(__builtin_popcount(ready)));
               skip; --skip)
            pick &= pick - 1;
        region = loop_.lanes[w * 32 + static_cast<unsigned>(__builtin_ctz(pick))].at;
      }
      for (unsigned lanes = ready; lanes; lanes &= lanes - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
        if (loop_.region_of[w] == region || loop_.lanes[w * 32 + l].at == region) {
          loop_.block.group[loop_.block.group_size++] = l;
          taken |= 1u << l;
        }
      }
    }
    if (order_state_) {
      unsigned* const group = loop_.block.group;
      for (unsigned i = loop_.block.group_size; i > 1; --i) std::swap(group[i - 1], group[next_random() % i]);
      // Half the time only some of them run: the others come later, so lanes drift apart at the
      // shuffles as on fibers, and shared memory read after a shuffle before its writer came shows.
      if (loop_.block.group_size > 1 && (next_random() & 1)) {
        unsigned kept = 1;
        taken = 1u << loop_.block.group[0];
        for (unsigned i = 1; i < loop_.block.group_size; ++i)
          if (next_random() & 1) {
            taken |= 1u << loop_.block.group[i];
            loop_.block.group[kept++] = loop_.block.group[i];
          }
        loop_.block.group_size = kept;
      }
    } else {
      loop_.cursor = k + 1 == warps_ ? 0 : k + 1;  // the next warp goes next: warps in step, as a FIFO of threads
    }
    loop_.ready[w] &= ~taken;
    loop_.region_of[w] = loop_.ready[w] ? ~0u : 0;
    loop_.block.warp = w;
    return static_cast<int>(region);
  }
  if (exited_ == threads_) return -1;
  loop_deadlock();
}

// A lane's next call into the runtime ends its hold on what its last gather handed it.
inline void BlockScheduler::release_loop_gather(unsigned linear) {
  LoopLane& x = loop_.lanes[linear];
  if (x.held) --x.held->readers;
  x.held = nullptr;
}

// The kernel makes a lane the running thread itself (hone_emu_self); the runtime's own idea of
// it catches up when the kernel calls in.
BlockScheduler::Lane& BlockScheduler::loop_current() {
  current_ = &lanes_[hone_emu_self->linear];
  return *current_;
}

// The running thread takes the stack over from the one that ran before it, so that a fault ends
// the block as the thread that faulted and the unwinding finds its frames.
void BlockScheduler::adopt_loop_stack() {
  Lane& owner = lanes_[loop_.owner];
  if (&owner == current_) return;
  current_->stack = owner.stack;
  current_->started = current_->alive = true;
  owner.alive = false;
  loop_.owner = current_->abi.linear;
}

// Fault messages and the deadlock diagnosis read where each thread waits from its Lane.
void BlockScheduler::publish_loop_waits() {
  for (unsigned linear = 0; linear < threads_; ++linear) {
    const LoopLane& x = loop_.lanes[linear];
    Lane& lane = lanes_[linear];
    lane.mask = x.mask;
    lane.op = x.op;
    switch (x.wait) {
      case LoopWait::ready: lane.wait = Wait::ready; break;
      case LoopWait::warp_barrier: lane.wait = Wait::warp_barrier; break;
      case LoopWait::block_barrier: lane.wait = Wait::block_barrier; break;
      case LoopWait::exited: lane.wait = Wait::exited; break;
    }
  }
}

inline LoopLane& BlockScheduler::post_at_warp_barrier(unsigned barrier, unsigned mask, const char* op,
                                                      unsigned long long value, bool gather) {
  const unsigned linear = loop_current().abi.linear;
  LoopLane& x = loop_.lanes[linear];
  release_loop_gather(linear);
  if (!((mask >> (linear % 32)) & 1u)) [[unlikely]]
    fault_mask_without_caller(mask, op);
  const unsigned warp = linear / 32;
  x.wait = LoopWait::warp_barrier;
  x.at = barrier;
  x.mask = mask;
  x.op = op;
  x.value = value;
  x.gather = gather;
  x.full = !gather && (mask & warp_lanes(warp)) == warp_lanes(warp);
  if (x.full) {
    const unsigned k = loop_.posts[linear]++;
    x.vals[k & 1] = value;
    LoopSlot& slot = loop_.slots[warp][k & 1];
    if (slot.k != k) slot = {k, 0, mask, op, linear};
    else if (slot.mask != mask || (slot.op != op && std::strcmp(slot.op, op) != 0)) [[unlikely]]
      fault_other_shuffle(slot, mask, op);
    ++slot.arrived;
  }
  loop_.at_shuffle[warp] |= 1u << (linear % 32);
  return x;
}

void BlockScheduler::loops_shuffle_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value,
                                        int src) {
  post_at_warp_barrier(barrier, mask, op, value, false).src = src;
}

void BlockScheduler::loops_gather_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value) {
  post_at_warp_barrier(barrier, mask, op, value, true);
}

void BlockScheduler::loops_sync_post(unsigned barrier, int predicate) {
  const unsigned linear = loop_current().abi.linear;
  LoopLane& x = loop_.lanes[linear];
  release_loop_gather(linear);
  if (exited_ > 0) check_barrier_arrival("__syncthreads");
  x.wait = LoopWait::block_barrier;
  x.at = barrier;
  x.predicate = predicate ? 1 : 0;
  ++loop_.at_block;
}

void BlockScheduler::loops_exit() {
  Lane& me = loop_current();
  LoopLane& x = loop_.lanes[me.abi.linear];
  release_loop_gather(me.abi.linear);
  if (loop_.at_block > 0)
    for (unsigned linear = 0; linear < threads_; ++linear)
      if (loop_.lanes[linear].wait == LoopWait::block_barrier)
        fault("barrier divergence in " + block_name() + ": " + thread_name(me.abi.linear) + " exited while " +
              thread_name(linear) + " waits at __syncthreads");
  x.wait = LoopWait::exited;
  exited_lanes_[me.abi.linear / 32] |= 1u << me.abi.lane;
  ++exited_;
  if (first_exited_ < 0) first_exited_ = static_cast<int>(me.abi.linear);
}

// A group of `warp` has run its region: complete what its lanes' posts complete.
void BlockScheduler::settle_loop_warp(unsigned warp) {
  if (loop_.block.shuffles) take_shuffle_records(warp);
  if (loop_.at_shuffle[warp] && !settle_loop_warp_in_step(warp)) settle_loop_shuffles(warp);
  if (loop_.at_block == threads_) settle_loop_block_barrier();
}

// The posts the group's lanes wrote into their shuffle records: settled at once in the common case,
// else made now, in the group's order, as each lane's call would have made them.
void BlockScheduler::take_shuffle_records(unsigned warp) {
  const unsigned base = warp * 32;
  hone_emu_wl_shuffle_record* const records = &loop_.shuffle_records[base];
  unsigned recorded = 0;
  for (unsigned i = 0; i < loop_.block.group_size; ++i) {
    const unsigned l = loop_.block.group[i];
    if (records[l].barrier != ~0u) recorded |= 1u << l;
  }
  if (!recorded) return;
  shuffle_records_ += static_cast<unsigned>(__builtin_popcount(recorded));
  if (recorded == warp_lanes(warp) && settle_shuffle_records_in_step(warp)) return;
  for (unsigned i = 0; i < loop_.block.group_size; ++i) {
    const unsigned l = loop_.block.group[i];
    hone_emu_wl_shuffle_record& r = records[l];
    if (r.barrier == ~0u) continue;
    hone_emu_self = loop_.threads[base + l];  // the post's checks name the lane
    post_at_warp_barrier(r.barrier, ~0u, r.op, r.value, false).src = r.src;
    r.barrier = ~0u;
  }
}

// Every lane of the warp wrote its record at its k-th whole-warp shuffle, one intrinsic, nothing
// else pending in the warp: each lane takes its result and goes on, and the warp's state is what
// the posts and settling one by one would have left. False (and nothing done) otherwise.
bool BlockScheduler::settle_shuffle_records_in_step(unsigned warp) {
  const unsigned live = warp_lanes(warp), base = warp * 32;
  if (loop_.at_shuffle[warp] || exited_lanes_[warp]) return false;
  hone_emu_wl_shuffle_record* const records = &loop_.shuffle_records[base];
  LoopLane* const lanes = &loop_.lanes[base];
  unsigned* const posts = &loop_.posts[base];
  const unsigned k = posts[0];
  const char* const op = records[0].op;
  LoopSlot& slot = loop_.slots[warp][k & 1];
  if (slot.k == k) return false;
  for (unsigned l = 0; l < 32 && ((live >> l) & 1u); ++l)
    if (posts[l] != k || (records[l].op != op && std::strcmp(records[l].op, op) != 0)) return false;
  const unsigned region = records[0].barrier + 1;
  bool same_region = true;
  for (unsigned l = 0; l < 32 && ((live >> l) & 1u); ++l) {
    LoopLane& x = lanes[l];
    hone_emu_wl_shuffle_record& r = records[l];
    if (x.held) release_loop_gather(base + l);
    const unsigned from = static_cast<unsigned>(r.src);
    loop_.results[base + l] = from < 32 && ((live >> from) & 1u) ? records[from].value : r.value;
    x.vals[k & 1] = r.value;
    posts[l] = k + 1;
    x.wait = LoopWait::ready;
    x.at = r.barrier + 1;
    same_region &= x.at == region;
    r.barrier = ~0u;
  }
  slot = {k, static_cast<unsigned>(__builtin_popcount(live)), ~0u, op, base + loop_.block.group[0]};
  loop_.ready[warp] = live;
  loop_.region_of[warp] = same_region ? region : ~0u;
  return true;
}

// The common case at once: every lane of the warp has posted its k-th whole-warp shuffle and no
// lane has exited. False (and nothing done) when it is not that case.
bool BlockScheduler::settle_loop_warp_in_step(unsigned warp) {
  const unsigned live = warp_lanes(warp);
  if (loop_.at_shuffle[warp] != live || exited_lanes_[warp] != 0) return false;
  const unsigned base = warp * 32;
  LoopLane* const lanes = &loop_.lanes[base];
  const unsigned* const posts = &loop_.posts[base];
  const unsigned k = posts[0] - 1;
  const LoopSlot& slot = loop_.slots[warp][k & 1];
  if (!lanes[0].full || slot.k != k || slot.arrived != static_cast<unsigned>(__builtin_popcount(live))) return false;
  for (unsigned l = 0; l < 32 && ((live >> l) & 1u); ++l)
    if (posts[l] != k + 1 || !lanes[l].full) return false;
  bool same_region = true;
  const unsigned region = lanes[0].at + 1;
  for (unsigned l = 0; l < 32 && ((live >> l) & 1u); ++l) {
    LoopLane& x = lanes[l];
    const unsigned from = static_cast<unsigned>(x.src);
    loop_.results[base + l] = from < 32 && ((live >> from) & 1u) ? lanes[from].vals[k & 1] : x.vals[k & 1];
    x.wait = LoopWait::ready;
    x.at += 1;
    same_region &= x.at == region;
  }
  loop_.at_shuffle[warp] = 0;
  loop_.ready[warp] = live;
  loop_.region_of[warp] = same_region ? region : ~0u;
  return true;
}

void BlockScheduler::settle_loop_shuffles(unsigned warp) {
  const unsigned base = warp * 32;
  const unsigned live = warp_lanes(warp);
  // First the whole-warp shuffles, each lane on its own; then the barriers of a group. With no
  // lane exited or at __syncthreads, the slots' counts tell whether every lane has posted a shuffle
  // (a slot taken over by shuffle k + 2 was complete); else the lanes are looked at.
  struct {
    unsigned present = ~0u, exited = ~0u, at_block = ~0u;
  } fewest;
  const bool plain = exited_lanes_[warp] == 0 && loop_.at_block == 0;
  const unsigned lanes_in_warp = static_cast<unsigned>(__builtin_popcount(live));
  auto all_posted = [&](unsigned k) {  // every lane has posted its k-th whole-warp shuffle
    if (!plain) return fewest.present >= k + 1;  // k + 1 wraps to 0 for the shuffle before the first
    const LoopSlot& slot = loop_.slots[warp][k & 1];
    return k == ~0u || (slot.k == k && slot.arrived == lanes_in_warp) || slot.k == k + 2;
  };
  if (!plain)
    for (unsigned lanes = live; lanes; lanes &= lanes - 1) {
      const unsigned m = static_cast<unsigned>(__builtin_ctz(lanes));
      const unsigned posted = loop_.posts[base + m];
      if ((exited_lanes_[warp] >> m) & 1u) fewest.exited = std::min(fewest.exited, posted);
      else fewest.present = std::min(fewest.present, posted);
      if (loop_.lanes[base + m].wait == LoopWait::block_barrier) fewest.at_block = std::min(fewest.at_block, posted);
    }
  unsigned groups = 0;
  for (unsigned pending = loop_.at_shuffle[warp]; pending; pending &= pending - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(pending));
    LoopLane& x = loop_.lanes[base + l];
    if (!x.full) {
      groups |= 1u << l;
      continue;
    }
    // Lane l goes on once the lane it reads has posted the same shuffle (its k-th), and only when
    // every lane has posted its (k-1)-th: its next post overwrites the value it brought to that.
    const unsigned k = loop_.posts[base + l] - 1;
    if (fewest.exited <= k || fewest.at_block <= k) [[unlikely]]
      check_whole_warp_arrivals(warp, l);
    if (!all_posted(k - 1)) continue;
    const unsigned from = static_cast<unsigned>(x.src);
    if (from < 32 && from != l && ((live >> from) & 1u)) {
      if (loop_.posts[base + from] <= k) continue;  // it has not come to this shuffle yet
      loop_.results[base + l] = loop_.lanes[base + from].vals[k & 1];
    } else {
      loop_.results[base + l] = x.vals[k & 1];
    }
    loop_.at_shuffle[warp] &= ~(1u << l);
    ready_at(base + l, x.at + 1);
  }
  for (unsigned pending = groups; pending;) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(pending));
    const LoopLane& me = loop_.lanes[base + l];
    const unsigned members = me.mask & live;
    pending &= ~(members | (1u << l));
    if (const unsigned gone = members & exited_lanes_[warp]) {
      current_ = &lanes_[base + l];  // the message names the lane that waits
      fault_names_exited(me.mask, me.op, gone);
    }
    if (members & loop_.ready[warp]) continue;  // a lane it names has not come yet
    // Two call sites of one intrinsic with one mask meet, as they do on the GPU and on fibers.
    for (unsigned rest = members; rest; rest &= rest - 1) {
      const unsigned m = static_cast<unsigned>(__builtin_ctz(rest));
      const LoopLane& other = loop_.lanes[base + m];
      if (other.wait != LoopWait::warp_barrier || other.gather != me.gather || other.full || other.mask != me.mask ||
          std::strcmp(other.op, me.op) != 0) [[unlikely]]
        fault_loop_group(warp, l, m);
    }
    if (me.gather) {  // as a warp barrier of the fiber scheduler hands them out
      Gathered* g = free_gathered(warp);
      g->readers = static_cast<unsigned>(__builtin_popcount(members));
      for (unsigned rest = members; rest; rest &= rest - 1) {
        const unsigned m = static_cast<unsigned>(__builtin_ctz(rest));
        LoopLane& x = loop_.lanes[base + m];
        g->values[m] = x.value;
        x.held = g;
        x.group = members;
      }
    } else {
      for (unsigned rest = members; rest; rest &= rest - 1) {
        const unsigned m = static_cast<unsigned>(__builtin_ctz(rest));
        const LoopLane& x = loop_.lanes[base + m];
        const unsigned from = static_cast<unsigned>(x.src);
        loop_.results[base + m] = from < 32 && ((members >> from) & 1u) ? loop_.lanes[base + from].value : x.value;
      }
    }
    for (unsigned rest = members; rest; rest &= rest - 1) {
      const unsigned m = base + static_cast<unsigned>(__builtin_ctz(rest));
      ready_at(m, loop_.lanes[m].at + 1);
    }
    loop_.at_shuffle[warp] &= ~members;
  }
}

// Every thread has posted at a __syncthreads (not necessarily the same one in the source: on the
// GPU as on fibers a block barrier counts arrivals); each goes on after its own.
void BlockScheduler::settle_loop_block_barrier() {
  int count = 0;
  for (unsigned linear = 0; linear < threads_; ++linear) count += loop_.lanes[linear].predicate;
  for (unsigned linear = 0; linear < threads_; ++linear) {
    loop_.lanes[linear].block_count = count;
    ready_at(linear, loop_.lanes[linear].at + 1);
  }
  loop_.at_block = 0;
  draw_warp_order();
}

// Some lane of `warp` has exited or waits at __syncthreads without having posted the whole-warp
// shuffle lane l waits at: it never will.
void BlockScheduler::check_whole_warp_arrivals(unsigned warp, unsigned l) {
  const unsigned base = warp * 32;
  const LoopLane& me = loop_.lanes[base + l];
  const unsigned k = loop_.posts[base + l] - 1;
  for (unsigned m = 0; m < 32; ++m) {
    if (!((warp_lanes(warp) >> m) & 1u) || loop_.posts[base + m] > k) continue;
    if ((exited_lanes_[warp] >> m) & 1u) {
      current_ = &lanes_[base + l];
      fault_names_exited(me.mask, me.op, 1u << m);
    }
    if (loop_.lanes[base + m].wait == LoopWait::block_barrier)
      fault_divergence(base + m, "__syncthreads", base + l, intrinsic_text(me.op, me.mask));
  }
}

void BlockScheduler::fault_other_shuffle(const LoopSlot& slot, unsigned mask, const char* op) {
  fault_divergence(current_->abi.linear, intrinsic_text(op, mask), slot.first, intrinsic_text(slot.op, slot.mask));
}

// Lane l's group names lane m, which waits elsewhere (or with another mask or intrinsic).
void BlockScheduler::fault_loop_group(unsigned warp, unsigned l, unsigned m) {
  publish_loop_waits();
  current_ = &lanes_[warp * 32 + l];
  fault_other_intrinsic(warp * 32 + m);
}

// No lane is ready and some have not exited: the barriers they wait at can never complete.
void BlockScheduler::loop_deadlock() {
  publish_loop_waits();
  diagnose_deadlock();
  fault(error_);
}

}  // namespace hone::emu

extern "C" {
hone_emu_loop_block* hone_emu_wl_begin(unsigned long long frame_bytes_per_thread) {
  return hone::emu::BlockScheduler::running()->loops_begin(frame_bytes_per_thread);
}
int hone_emu_wl_next(void) { return hone::emu::BlockScheduler::running()->loops_next(); }
void hone_emu_wl_exit(void) { hone::emu::BlockScheduler::running()->loops_exit(); }
void hone_emu_wl_shuffle_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value, int src) {
  hone::emu::BlockScheduler::running()->loops_shuffle_post(barrier, mask, op, value, src);
}
void hone_emu_wl_gather_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value) {
  hone::emu::BlockScheduler::running()->loops_gather_post(barrier, mask, op, value);
}
const unsigned long long* hone_emu_wl_gather_take(unsigned* group) {
  return hone::emu::BlockScheduler::running()->loops_gather_take(group);
}
void hone_emu_wl_sync_post(unsigned barrier, int predicate) {
  hone::emu::BlockScheduler::running()->loops_sync_post(barrier, predicate);
}
int hone_emu_wl_sync_take(void) { return hone::emu::BlockScheduler::running()->loops_sync_take(); }
}
