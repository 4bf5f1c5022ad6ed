// The runtime's side of a kernel compiled as warp loops (runtime/emu/warp_loops): the compiler
// cut the kernel at its barriers into regions and made it a loop that asks the runtime which
// region to run next, and for which lanes, then runs it for each of them in turn. One call of the
// kernel runs the whole block on the stack of the thread that started it; "entering" a lane only
// makes it the running thread for the built-ins and the fault messages.
//
// The scheduling is the fiber scheduler's, a region at a time instead of a switch at a time: the
// lanes of a warp that are ready at the same region run it together, warps in a drawn order (the
// first keeps running until it stops at __syncthreads, which exposes a missing barrier between
// warps) and lanes in a drawn order. A shuffle or a gather (votes, __syncwarp, matches, wmma)
// completes when every lane its mask names has posted there, a __syncthreads when every thread
// has; a lane named by a shuffle that has exited, a thread at __syncthreads while another has
// exited, lanes of one group at different barriers, and barriers that can never complete fault
// with the fiber scheduler's messages.
#include <algorithm>
#include <cstring>
#include <string>

#include "block_scheduler.hpp"
#include "hone_emu/abi.h"

namespace hone::emu {

unsigned char* BlockScheduler::loops_begin(std::uint64_t frame_bytes_per_thread) {
  loops_ = true;
  queued_ = 0;  // the other threads never start: this one runs them all
  std::fill(std::begin(ready_lanes_), std::end(ready_lanes_), 0u);
  if (!loop_lanes_) loop_lanes_.reset(new LoopLane[kMaxThreads]);
  for (unsigned w = 0; w < warps_; ++w) {
    loop_ready_[w] = warp_lanes(w);
    loop_at_shuffle_[w] = 0;
  }
  for (unsigned linear = 0; linear < threads_; ++linear) loop_lanes_[linear].at = loop_lanes_[linear].posts = 0;
  for (auto& slots : loop_slots_) slots[0].k = slots[1].k = ~0u;
  loop_at_block_ = 0;
  loop_cursor_ = 0;
  loop_group_size_ = 0;
  const std::size_t bytes = frame_bytes_per_thread * threads_;
  if (bytes > frame_capacity_) {
    frame_.reset(static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    frame_capacity_ = frame_ ? bytes : 0;
    if (!frame_) fault("emu runtime failure in " + block_name() + ": no memory for the threads' variables");
  }
  return frame_.get();
}

inline void BlockScheduler::ready_at(unsigned linear, unsigned region) {
  loop_lanes_[linear].at = region;
  lanes_[linear].wait = Wait::ready;
  loop_ready_[linear / 32] |= 1u << (linear % 32);
}

int BlockScheduler::loops_next() {
  if (loop_group_size_) settle_loop_warp(loop_warp_);
  loop_group_size_ = 0;
  for (unsigned n = 0; n < warps_; ++n) {
    const unsigned k = order_state_ ? n : (loop_cursor_ + n) % warps_;
    const unsigned w = order_state_ ? warp_order_[k] : k;
    const unsigned ready = loop_ready_[w];
    if (!ready) continue;
    unsigned pick = ready;
    if (order_state_)
      for (unsigned skip = static_cast<unsigned>(next_random() % static_cast<unsigned>(__builtin_popcount(ready))); skip;
           --skip)
        pick &= pick - 1;
    const unsigned region = loop_lanes_[w * 32 + static_cast<unsigned>(__builtin_ctz(pick))].at;
    for (unsigned lanes = ready; lanes; lanes &= lanes - 1) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(lanes));
      if (loop_lanes_[w * 32 + l].at == region) loop_group_[loop_group_size_++] = l;
    }
    if (order_state_) {
      for (unsigned i = loop_group_size_; i > 1; --i) std::swap(loop_group_[i - 1], loop_group_[next_random() % i]);
      // Half the time only some of them run: the others come later, so lanes drift apart at the
      // shuffles as on fibers, and shared memory read after a shuffle before its writer came shows.
      if (loop_group_size_ > 1 && (next_random() & 1)) {
        unsigned kept = 1;
        for (unsigned i = 1; i < loop_group_size_; ++i)
          if (next_random() & 1) loop_group_[kept++] = loop_group_[i];
        loop_group_size_ = kept;
      }
    } else {
      loop_cursor_ = (k + 1) % warps_;  // the next warp goes next: warps in step, as a FIFO of threads
    }
    for (unsigned i = 0; i < loop_group_size_; ++i) loop_ready_[w] &= ~(1u << loop_group_[i]);
    loop_warp_ = w;
    return static_cast<int>(region);
  }
  if (exited_ == threads_) return -1;
  loop_deadlock();
}

// `next` becomes the running thread. The stack goes with it, so that a fault unwinds it.
void BlockScheduler::become(Lane& next) {
  if (&next == current_) return;
  next.stack = current_->stack;
  next.started = next.alive = true;
  current_->alive = false;
  current_ = &next;
  hone_emu_self = &next.abi;
}

unsigned BlockScheduler::loops_enter(unsigned i) {
  const unsigned linear = loop_warp_ * 32 + loop_group_[i];
  become(lanes_[linear]);
  return linear;
}

// A lane's next call into the runtime ends its hold on what its last gather handed it.
BlockScheduler::Lane& BlockScheduler::post_at_warp_barrier(unsigned barrier, unsigned mask, const char* op,
                                                           unsigned long long value, bool gather) {
  Lane& me = *current_;
  release(me);
  if (!((mask >> me.abi.lane) & 1u)) fault_mask_without_caller(mask, op);
  me.wait = Wait::warp_barrier;
  me.mask = mask;
  me.op = op;
  LoopLane& x = loop_lanes_[me.abi.linear];
  const unsigned warp = me.abi.linear / 32;
  x.at = barrier;
  x.value = value;
  x.gather = gather;
  x.full = !gather && (mask & warp_lanes(warp)) == warp_lanes(warp);
  if (x.full) {
    const unsigned k = x.posts++;
    x.vals[k & 1] = value;
    LoopSlot& slot = loop_slots_[warp][k & 1];
    if (slot.k != k) slot = {k, 0, mask, op, me.abi.linear};
    else if (slot.mask != mask || (slot.op != op && std::strcmp(slot.op, op) != 0)) [[unlikely]]
      fault_other_shuffle(slot, mask, op);
    ++slot.arrived;
  }
  loop_at_shuffle_[warp] |= 1u << me.abi.lane;
  return me;
}

void BlockScheduler::loops_shuffle_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value,
                                        int src) {
  const Lane& me = post_at_warp_barrier(barrier, mask, op, value, false);
  loop_lanes_[me.abi.linear].src = src;
}

void BlockScheduler::loops_gather_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value) {
  post_at_warp_barrier(barrier, mask, op, value, true);
}

void BlockScheduler::loops_sync_post(unsigned barrier, int predicate) {
  Lane& me = *current_;
  release(me);
  if (exited_ > 0) check_barrier_arrival("__syncthreads");
  me.wait = Wait::block_barrier;
  LoopLane& x = loop_lanes_[me.abi.linear];
  x.at = barrier;
  x.predicate = predicate ? 1 : 0;
  ++loop_at_block_;
}

void BlockScheduler::loops_exit() {
  Lane& me = *current_;
  release(me);
  if (loop_at_block_ > 0)
    for (unsigned linear = 0; linear < threads_; ++linear)
      if (lanes_[linear].wait == Wait::block_barrier)
        fault("barrier divergence in " + block_name() + ": " + thread_name(me.abi.linear) + " exited while " +
              thread_name(linear) + " waits at __syncthreads");
  me.wait = Wait::exited;
  exited_lanes_[me.abi.linear / 32] |= 1u << me.abi.lane;
  ++exited_;
  if (first_exited_ < 0) first_exited_ = static_cast<int>(me.abi.linear);
}

// A group of `warp` has run its region: complete what its lanes' posts complete.
void BlockScheduler::settle_loop_warp(unsigned warp) {
  if (loop_at_shuffle_[warp]) settle_loop_shuffles(warp);
  if (loop_at_block_ == threads_) settle_loop_block_barrier();
}

void BlockScheduler::settle_loop_shuffles(unsigned warp) {
  const unsigned base = warp * 32;
  const unsigned live = warp_lanes(warp);
  // First the whole-warp shuffles, each lane on its own; then the barriers of a group. With no
  // lane exited or at __syncthreads, the slots' counts tell whether every lane has posted a shuffle
  // (a slot taken over by shuffle k + 2 was complete); else the lanes are looked at.
  WarpPosts fewest;
  const bool plain = exited_lanes_[warp] == 0 && loop_at_block_ == 0;
  const unsigned lanes_in_warp = static_cast<unsigned>(__builtin_popcount(live));
  auto all_posted = [&](unsigned k) {  // every lane has posted its k-th whole-warp shuffle
    if (!plain) return fewest.present >= k + 1;  // k + 1 wraps to 0 for the shuffle before the first
    const LoopSlot& slot = loop_slots_[warp][k & 1];
    return k == ~0u || (slot.k == k && slot.arrived == lanes_in_warp) || slot.k == k + 2;
  };
  if (!plain)
    for (unsigned lanes = live; lanes; lanes &= lanes - 1) {
      const unsigned m = static_cast<unsigned>(__builtin_ctz(lanes));
      const unsigned posted = loop_lanes_[base + m].posts;
      if ((exited_lanes_[warp] >> m) & 1u) fewest.exited = std::min(fewest.exited, posted);
      else fewest.present = std::min(fewest.present, posted);
      if (lanes_[base + m].wait == Wait::block_barrier) fewest.at_block = std::min(fewest.at_block, posted);
    }
  unsigned groups = 0;
  for (unsigned pending = loop_at_shuffle_[warp]; pending; pending &= pending - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(pending));
    LoopLane& x = loop_lanes_[base + l];
    if (!x.full) {
      groups |= 1u << l;
      continue;
    }
    // A whole-warp shuffle is no barrier (as on fibers): lane l goes on once the lane it reads
    // has posted the same shuffle (its k-th). It goes on only when every lane has posted its
    // (k-1)-th: its next post overwrites the value it brought to that one.
    const unsigned k = x.posts - 1;
    if (fewest.exited <= k || fewest.at_block <= k) [[unlikely]]
      check_whole_warp_arrivals(warp, l);
    if (!all_posted(k - 1)) continue;
    const unsigned from = static_cast<unsigned>(x.src);
    if (from < 32 && from != l && ((live >> from) & 1u)) {
      const LoopLane& source = loop_lanes_[base + from];
      if (source.posts <= k) continue;  // it has not come to this shuffle yet
      x.result = source.vals[k & 1];
    } else {
      x.result = x.vals[k & 1];
    }
    loop_at_shuffle_[warp] &= ~(1u << l);
    ready_at(base + l, x.at + 1);
  }
  for (unsigned pending = groups; pending;) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(pending));
    Lane& me = lanes_[base + l];
    const unsigned members = me.mask & live;
    pending &= ~(members | (1u << l));
    if (const unsigned gone = members & exited_lanes_[warp]) {
      become(me);  // the message names the lane that waits
      fault_names_exited(me.mask, me.op, gone);
    }
    if (members & loop_ready_[warp]) continue;  // a lane it reads has not come yet
    for (unsigned rest = members; rest; rest &= rest - 1) {
      const unsigned m = static_cast<unsigned>(__builtin_ctz(rest));
      const Lane& other = lanes_[base + m];
      // Two call sites of one intrinsic with one mask meet, as they do on the GPU and on fibers.
      if (other.wait == Wait::warp_barrier && loop_lanes_[base + m].gather == loop_lanes_[base + l].gather &&
          other.mask == me.mask && std::strcmp(other.op, me.op) == 0)
        continue;
      fault("barrier divergence in " + block_name() + ": " + thread_name(base + l) + " waits at " +
            wait_description(me) + " while " + thread_name(base + m) + " waits at " + wait_description(other));
    }
    if (loop_lanes_[base + l].gather) {  // as a warp barrier of the fiber scheduler hands them out
      Gathered* g = free_gathered(warp);
      g->readers = static_cast<unsigned>(__builtin_popcount(members));
      for (unsigned rest = members; rest; rest &= rest - 1) {
        const unsigned m = static_cast<unsigned>(__builtin_ctz(rest));
        g->values[m] = loop_lanes_[base + m].value;
        lanes_[base + m].held = g;
        lanes_[base + m].group = members;
      }
    } else {
      for (unsigned rest = members; rest; rest &= rest - 1) {
        LoopLane& x = loop_lanes_[base + static_cast<unsigned>(__builtin_ctz(rest))];
        const int src = x.src;
        x.result = src >= 0 && src < 32 && ((members >> src) & 1u) ? loop_lanes_[base + static_cast<unsigned>(src)].value
                                                                    : x.value;
      }
    }
    for (unsigned rest = members; rest; rest &= rest - 1) {
      const unsigned m = base + static_cast<unsigned>(__builtin_ctz(rest));
      ready_at(m, loop_lanes_[m].at + 1);
    }
    loop_at_shuffle_[warp] &= ~members;
  }
}

// Some lane of `warp` has exited or waits at __syncthreads without having posted the whole-warp
// shuffle lane l waits at: it never will.
void BlockScheduler::check_whole_warp_arrivals(unsigned warp, unsigned l) {
  const unsigned base = warp * 32;
  Lane& me = lanes_[base + l];
  const unsigned k = loop_lanes_[base + l].posts - 1;
  for (unsigned m = 0; m < 32; ++m) {
    if (!((warp_lanes(warp) >> m) & 1u) || loop_lanes_[base + m].posts > k) continue;
    if ((exited_lanes_[warp] >> m) & 1u) {
      become(me);
      fault_names_exited(me.mask, me.op, 1u << m);
    }
    if (lanes_[base + m].wait == Wait::block_barrier)
      fault("barrier divergence in " + block_name() + ": " + thread_name(base + m) + " waits at __syncthreads while " +
            thread_name(base + l) + " waits at " + intrinsic_text(me.op, me.mask));
  }
}

void BlockScheduler::fault_other_shuffle(const LoopSlot& slot, unsigned mask, const char* op) {
  fault("barrier divergence in " + block_name() + ": " + thread_name(current_->abi.linear) + " waits at " +
        intrinsic_text(op, mask) + " while " + thread_name(slot.first) + " waits at " + intrinsic_text(slot.op, slot.mask));
}

// Every thread has posted at a __syncthreads (not necessarily the same one in the source: on the
// GPU as on fibers a block barrier counts arrivals); each goes on after its own.
void BlockScheduler::settle_loop_block_barrier() {
  int count = 0;
  for (unsigned linear = 0; linear < threads_; ++linear) count += loop_lanes_[linear].predicate;
  for (unsigned linear = 0; linear < threads_; ++linear) {
    loop_lanes_[linear].block_count = count;
    ready_at(linear, loop_lanes_[linear].at + 1);
  }
  loop_at_block_ = 0;
  draw_warp_order();
}

// No lane is ready and some have not exited: the barriers they wait at can never complete.
void BlockScheduler::loop_deadlock() {
  diagnose_deadlock();
  fault(error_);
}

}  // namespace hone::emu

extern "C" {
unsigned char* hone_emu_wl_begin(unsigned long long frame_bytes_per_thread) {
  return hone::emu::BlockScheduler::running()->loops_begin(frame_bytes_per_thread);
}
int hone_emu_wl_next(void) { return hone::emu::BlockScheduler::running()->loops_next(); }
unsigned hone_emu_wl_group(void) { return hone::emu::BlockScheduler::running()->loops_group(); }
unsigned hone_emu_wl_enter(unsigned i) { return hone::emu::BlockScheduler::running()->loops_enter(i); }
void hone_emu_wl_exit(void) { hone::emu::BlockScheduler::running()->loops_exit(); }
void hone_emu_wl_shuffle_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value, int src) {
  hone::emu::BlockScheduler::running()->loops_shuffle_post(barrier, mask, op, value, src);
}
unsigned long long hone_emu_wl_shuffle_take(void) { return hone::emu::BlockScheduler::running()->loops_shuffle_take(); }
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
