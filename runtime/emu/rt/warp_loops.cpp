// The runtime's side of a kernel compiled as warp loops (runtime/emu/warp_loops): the compiler
// proved that every thread meets every barrier in the same order, and turned each stretch
// between barriers into a loop over a warp's lanes. One call of the kernel runs the whole block
// on the stack of the thread that started it; "entering" a lane only makes it the running thread
// for the built-ins and the fault messages. The order is drawn as the fiber scheduler draws it:
// warps in a drawn order at every block barrier, lanes in a drawn order in every region.
#include <algorithm>
#include <cstring>
#include <string>

#include "block_scheduler.hpp"
#include "hone_emu/abi.h"
#include "schedule_order.hpp"

namespace hone::emu {

unsigned char* BlockScheduler::loops_begin(std::uint64_t frame_bytes_per_thread) {
  loops_ = true;
  queued_ = 0;  // the other threads never start: this one runs them all
  std::fill(std::begin(ready_lanes_), std::end(ready_lanes_), 0u);
  loop_shuffles_[0].checked = loop_shuffles_[1].checked = true;
  const std::size_t bytes = frame_bytes_per_thread * threads_;
  if (bytes > frame_capacity_) {
    frame_.reset(static_cast<unsigned char*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    frame_capacity_ = frame_ ? bytes : 0;
    if (!frame_) fault("emu runtime failure in " + block_name() + ": no memory for the threads' variables");
  }
  return frame_.get();
}

unsigned BlockScheduler::loops_lanes(unsigned warp_slot) const {
  return static_cast<unsigned>(__builtin_popcount(warp_lanes(order_state_ ? warp_order_[warp_slot] : warp_slot)));
}

unsigned BlockScheduler::loops_enter(unsigned warp_slot, unsigned lane_slot) {
  if (lane_slot == 0) {
    loop_warp_ = order_state_ ? warp_order_[warp_slot] : warp_slot;
    const unsigned lanes = static_cast<unsigned>(__builtin_popcount(warp_lanes(loop_warp_)));
    for (unsigned l = 0; l < lanes; ++l) loop_lanes_[l] = l;
    if (order_state_)
      for (unsigned l = lanes; l > 1; --l) std::swap(loop_lanes_[l - 1], loop_lanes_[next_random() % l]);
  }
  const unsigned linear = loop_warp_ * 32 + loop_lanes_[lane_slot];
  Lane& next = lanes_[linear];
  if (&next != current_) {  // the stack goes with the running thread, so a fault unwinds it
    next.stack = current_->stack;
    next.started = next.alive = true;
    current_->alive = false;
    current_ = &next;
    hone_emu_self = &next.abi;
  }
  return linear;
}

void BlockScheduler::loops_shuffle_post(unsigned parity, unsigned mask, const char* op, unsigned long long value,
                                        int src) {
  const Lane& me = *current_;
  if (!((mask >> me.abi.lane) & 1u)) fault_mask_without_caller(mask, op);
  LoopShuffle& s = loop_shuffles_[parity & 1u];
  s.values[me.abi.lane] = value;
  s.mask[me.abi.lane] = mask;
  s.src[me.abi.lane] = src;
  s.op[me.abi.lane] = op;  // one call, but its arguments may be chosen per lane (two merged calls)
  s.checked = false;
}

// A lane's group is the lanes its mask names: each of them must have come with the same mask and
// intrinsic, as at a warp barrier of the fiber scheduler.
void BlockScheduler::check_loop_shuffle(LoopShuffle& s) {
  const unsigned live = warp_lanes(loop_warp_);
  const unsigned base = loop_warp_ * 32;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((live >> l) & 1u)) continue;
    const unsigned members = s.mask[l] & live;
    for (unsigned m = 0; m < 32; ++m) {
      if (!((members >> m) & 1u) || (s.mask[m] == s.mask[l] && std::strcmp(s.op[m], s.op[l]) == 0)) continue;
      for (const unsigned waiting : {l, m}) {
        lanes_[base + waiting].wait = Wait::warp_barrier;
        lanes_[base + waiting].op = s.op[waiting];
        lanes_[base + waiting].mask = s.mask[waiting];
      }
      fault("barrier divergence in " + block_name() + ": " + thread_name(base + l) + " waits at " +
            wait_description(lanes_[base + l]) + " while " + thread_name(base + m) + " waits at " +
            wait_description(lanes_[base + m]));
    }
  }
  s.checked = true;
}

unsigned long long BlockScheduler::loops_shuffle_take(unsigned parity) {
  LoopShuffle& s = loop_shuffles_[parity & 1u];
  const unsigned lane = current_->abi.lane;
  const unsigned live = warp_lanes(loop_warp_);
  if (!s.checked) {  // the first lane to read: every lane of the warp has posted
    bool same = (s.mask[lane] & live) == live;
    for (unsigned l = 0; l < 32; ++l)
      if ((live >> l) & 1u) same &= s.mask[l] == s.mask[lane] && s.op[l] == s.op[lane];
    if (same) s.checked = true;
    else check_loop_shuffle(s);
  }
  const unsigned group = s.mask[lane] & live;
  const int src = s.src[lane];
  return src >= 0 && src < 32 && ((group >> src) & 1u) ? s.values[src] : s.values[lane];
}

void BlockScheduler::loops_sync_done() {
  loops_block_result_ = block_count_;
  block_count_ = 0;
  draw_warp_order();
}

// The kernel has returned: every thread has run to its end.
void BlockScheduler::finish_loops() {
  for (unsigned linear = 0; linear < threads_; ++linear) lanes_[linear].wait = Wait::exited;
  for (unsigned w = 0; w < warps_; ++w) exited_lanes_[w] = warp_lanes(w);
  exited_ = threads_;
}

}  // namespace hone::emu

extern "C" {
unsigned char* hone_emu_wl_begin(unsigned long long frame_bytes_per_thread) {
  return hone::emu::BlockScheduler::running()->loops_begin(frame_bytes_per_thread);
}
unsigned hone_emu_wl_warps(void) { return hone::emu::BlockScheduler::running()->loops_warps(); }
unsigned hone_emu_wl_lanes(unsigned warp_slot) { return hone::emu::BlockScheduler::running()->loops_lanes(warp_slot); }
unsigned hone_emu_wl_enter(unsigned warp_slot, unsigned lane_slot) {
  return hone::emu::BlockScheduler::running()->loops_enter(warp_slot, lane_slot);
}
void hone_emu_wl_shuffle_post(unsigned parity, unsigned mask, const char* op, unsigned long long value, int src) {
  hone::emu::BlockScheduler::running()->loops_shuffle_post(parity, mask, op, value, src);
}
unsigned long long hone_emu_wl_shuffle_take(unsigned parity) {
  return hone::emu::BlockScheduler::running()->loops_shuffle_take(parity);
}
void hone_emu_wl_sync_post(int predicate) { hone::emu::BlockScheduler::running()->loops_sync_post(predicate); }
void hone_emu_wl_sync_done(void) { hone::emu::BlockScheduler::running()->loops_sync_done(); }
int hone_emu_wl_sync_take(void) { return hone::emu::BlockScheduler::running()->loops_sync_take(); }
}
