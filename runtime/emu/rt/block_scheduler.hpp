#pragma once
// Runs one thread block: every CUDA thread is a fiber on the calling OS thread, scheduled
// cooperatively. A thread runs until it reaches a barrier (__syncthreads, a warp intrinsic) or
// exits; a barrier releases its waiters when every thread it names has arrived. When no thread
// can run and some have not finished, the block has deadlocked on divergent barriers, and the
// scheduler reports which threads wait where.
//
// A thread that stops hands the OS thread straight to the next ready thread (one context switch,
// fiber_switch.hpp, not two through a scheduler loop): in a warp shuffle the lane that comes first
// of the two that read each other waits, so a shuffle costs half a switch per lane and a few
// stores, which is most of what a shuffle-heavy kernel pays for emulation. run() gets control
// back only when no thread can run, or a fault ends the block; a block that ends with threads
// still suspended resumes each once to unwind its stack.
//
// A kernel compiled as warp loops (runtime/emu/warp_loops) runs on the first thread's fiber
// alone: it asks the scheduler which region to run for which lanes, and the scheduler completes
// the barriers they post at with the same rules and checks (warp_loops.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grid.hpp"
#include "hone_emu/abi.h"
#include "shared_arena.hpp"
#include "stack_pool.hpp"
#include "warp_loop_state.hpp"

namespace hone::emu {

using KernelEntry = void (*)(void**);

struct BlockTask {
  KernelEntry kernel = nullptr;
  void** args = nullptr;
  dim3 grid_dim;
  dim3 block_dim;
  uint3 block_idx{0, 0, 0};
  std::size_t dynamic_smem = 0;
  StaticSharedLayout static_shared;
  std::uint64_t schedule_seed = 0;  // 0: ready threads resume in FIFO order; else shuffled from this
  dim3 cluster_dim;                 // blocks per cluster (1,1,1: no cluster; cluster.sync() is a block barrier)
};

/// "__shfl_xor_sync (mask 0xffffffff)": where a lane waits, in fault messages.
std::string intrinsic_text(const char* op, unsigned mask);

class BlockScheduler {
 public:
  /// The scheduler of the calling OS thread (each OS thread runs one block at a time).
  static BlockScheduler& for_this_thread();
  /// The scheduler whose fiber is running on this OS thread, or nullptr outside a kernel.
  static BlockScheduler* running() { return running_; }

  BlockScheduler();
  ~BlockScheduler();
  BlockScheduler(const BlockScheduler&) = delete;
  BlockScheduler& operator=(const BlockScheduler&) = delete;

  /// Runs every thread of the block to completion; returns "" or the fault that ended it. No
  /// fiber survives the call, whatever happened.
  std::string run(const BlockTask& task);

  // A block of a cluster runs in turns with the other blocks of its cluster, on one OS thread
  // (ClusterRunner): begin(), then proceed() until it has finished, each time it stops with every
  // thread at cluster.sync() the runner releases it once all the cluster's blocks are there; end()
  // tears it down (diagnosing a deadlock when it did not finish) and gives the fault or "".
  enum class Outcome : std::uint8_t { finished, at_cluster_barrier };
  void begin(const BlockTask& task);
  Outcome proceed();
  void release_cluster_barrier();
  std::string end();
  bool faulted() const { return faulted_; }
  /// This block's dynamic shared memory (extern __shared__) and its size.
  unsigned char* dynamic_shared() const { return dynamic_smem_; }
  std::size_t dynamic_shared_bytes() const { return task_.dynamic_smem; }

  // Called by the running kernel thread (through the extern "C" built-ins).
  int sync_block(int predicate);
  void sync_cluster();
  const unsigned long long* warp_gather(unsigned mask, const char* op, unsigned long long value, unsigned* group);
  unsigned long long warp_shuffle(unsigned mask, const char* op, unsigned long long value, int src);
  unsigned active_mask();
  [[noreturn]] void fault(const std::string& reason);
  [[noreturn, gnu::cold, gnu::noinline]] void fault_mask_without_caller(unsigned mask, const char* op);
  [[noreturn, gnu::cold, gnu::noinline]] void fault_names_exited(unsigned mask, const char* op, unsigned gone);
  [[noreturn, gnu::cold, gnu::noinline]] void fault_other_intrinsic(unsigned other);
  // "barrier divergence in <block>: <thread a> waits at <at_a> while <thread b> waits at <at_b>".
  [[noreturn, gnu::cold, gnu::noinline]] void fault_divergence(unsigned a, const std::string& at_a, unsigned b,
                                                               const std::string& at_b);

  // A kernel compiled as warp loops (runtime/emu/warp_loops): its first call into the runtime
  // turns the block's only started thread into the one that runs every thread of the block, a
  // region between barriers at a time for a group of a warp's lanes (warp_loops.cpp).
  hone_emu_loop_block* loops_begin(std::uint64_t frame_bytes_per_thread);
  int loops_next();
  void loops_exit();
  void loops_shuffle_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value, int src);
  void loops_gather_post(unsigned barrier, unsigned mask, const char* op, unsigned long long value);
  const unsigned long long* loops_gather_take(unsigned* group) const {
    const LoopLane& x = loop_.lanes[hone_emu_self->linear];
    *group = x.group;
    return x.held->values;
  }
  void loops_sync_post(unsigned barrier, int predicate);
  int loops_sync_take() const { return loop_.lanes[hone_emu_self->linear].block_count; }

  /// "block (x,y,z) thread (x,y,z)" of the running kernel thread, for fault messages.
  std::string current_thread_name() const;

 private:
  static constexpr unsigned kMaxThreads = 1024;
  enum class Wait : std::uint8_t { ready, block_barrier, cluster_barrier, warp_barrier, active_query, exited, faulted };
  // What a completed warp barrier hands its members: their values, kept until each member has
  // read them, that is until it calls into the runtime again (or exits). A lane holds at most
  // one, so 33 per warp always leave one free.
  using Gathered = GatheredValues;
  static constexpr unsigned kGatheredPerWarp = 33;

  // The shuffles a warp's lanes have in flight when the mask names the whole warp: the k-th such
  // shuffle of every lane is the same one, so a lane deposits its value in the k-th slot and reads
  // its source's there, waiting only when that lane has not yet arrived. Lanes drift apart by up
  // to kShuffleRing shuffles; one further ahead waits for the oldest slot to be read by all.
  static constexpr unsigned kShuffleRing = 8;
  struct ShuffleSlot {
    unsigned long long values[32];
    unsigned waiting_for[32];  // per source lane in `waited`: the lanes suspended until it deposits
    const char* op;            // the intrinsic and mask of the first lane to arrive, and that lane
    unsigned mask;
    unsigned first;
    unsigned arrived;
    unsigned passed;           // lanes that have read what they needed and gone on
    unsigned waited;           // source lanes some lane waits for
  };
  struct ShuffleRing {
    std::uint64_t base = 0;  // the oldest shuffle some lane has yet to pass
    std::uint64_t top = 0;   // the next shuffle no lane has reached; never past base + kShuffleRing
    unsigned waiting_slot = 0;  // lanes suspended until `base` moves on
    unsigned live = 0;          // the warp's lanes (all 32 but in a partial last warp)
    ShuffleSlot slots[kShuffleRing];
  };

  struct Lane {
    hone_emu_thread abi;
    void* sp = nullptr;  // the saved stack pointer while it is suspended (fiber_switch.hpp)
    FiberStack stack;
    Wait wait = Wait::ready;
    bool started = false;
    bool alive = false;  // started and its stack not yet given back
    int predicate = 0;
    int block_result = 0;
    unsigned mask = 0;
    const char* op = nullptr;
    unsigned group = 0;
    Gathered* held = nullptr;  // the values of this lane's last completed warp barrier
    std::uint64_t shuffles = 0;  // whole-warp shuffles this lane has passed
    ShuffleRing* ring = nullptr;  // its warp's
  };

  // initial-exec: read on every built-in call; the runtime is loaded with the process, so its
  // thread-locals live in the static TLS block and need no __tls_get_addr.
  // constinit: no dynamic initialisation, so no TLS wrapper call on every read.
  static inline constinit thread_local BlockScheduler* running_ __attribute__((tls_model("initial-exec"))) = nullptr;

  static void fiber_entry(void* lane);
  [[noreturn]] void thread_main(Lane& first);
  bool run_kernel();
  [[gnu::noinline]] bool start_fiber(Lane& lane);
  void suspend();
  void switch_to(Lane* next);
  bool enter(Lane* next);
  Lane* next_ready();
  // A lane's values from its last warp barrier are read by now: it is back in the runtime.
  static void release(Lane& lane) {
    if (lane.held) --lane.held->readers;
    lane.held = nullptr;
  }
  Gathered* free_gathered(unsigned warp);
  void wake(unsigned linear);
  // The rare turns of warp_shuffle, kept out of its hot path.
  [[gnu::noinline]] unsigned long long partial_shuffle(unsigned mask, const char* op, unsigned long long value, int src);
  [[gnu::cold, gnu::noinline]] void check_shuffle_members(std::uint64_t k, unsigned mask, const char* op);
  [[gnu::noinline]] void open_shuffle(ShuffleRing& ring, std::uint64_t k, unsigned mask, const char* op);
  [[gnu::cold, gnu::noinline]] void check_same_shuffle(const ShuffleSlot& slot, unsigned mask, const char* op);
  [[gnu::noinline]] void wake_readers(ShuffleSlot& slot, unsigned lane);
  [[gnu::noinline]] void wait_for_value(ShuffleSlot& slot, unsigned src);
  [[gnu::noinline]] unsigned long long shuffle_rare(unsigned mask, const char* op, unsigned long long value, int src);
  unsigned long long shuffle_open(Lane& me, ShuffleSlot& slot, std::uint64_t k, unsigned long long value, int src);
  [[gnu::noinline]] void retire_shuffles(ShuffleRing& ring);
  void on_exit(Lane& lane);
  void release_active_queries(unsigned warp_base);
  void record_fault(const std::string& reason);
  void diagnose_deadlock();
  [[gnu::cold, gnu::noinline]] void check_barrier_arrival(const char* barrier);
  void arrive_block_wide(Lane& me, Wait wait, const char* barrier);
  void destroy_fibers();
  void prepare(const BlockTask& task);
  void push_ready(unsigned linear);
  unsigned pop_ready();
  std::uint64_t next_random();
  void draw_warp_order();
  void poison_static_shared();

  std::string block_name() const;
  std::string thread_name(unsigned linear) const;
  std::string wait_description(const Lane& lane) const;
  // The lanes that exist in a (possibly partial) warp.
  unsigned warp_lanes(unsigned warp) const {
    const unsigned count = threads_ - warp * 32 < 32 ? threads_ - warp * 32 : 32;
    return count == 32 ? 0xffffffffu : (1u << count) - 1;
  }

  StackPool stacks_;
  std::unique_ptr<Lane[]> lanes_;
  std::vector<unsigned> queue_;  // ring of ready threads; each is queued at most once
  unsigned queue_head_ = 0;
  unsigned queued_ = 0;
  std::uint64_t switches_ = 0;      // fiber resumptions in this block, for fiber_switch_count()
  std::uint64_t shuffle_records_ = 0;  // shuffle posts the kernel wrote itself, for shuffle_record_count()
  void* main_sp_ = nullptr;         // run()'s stack pointer while a kernel thread runs
  bool unwinding_ = false;          // destroy_fibers() is tearing the suspended threads down
  std::size_t stack_bytes_ = StackPool::stack_bytes();
  std::size_t guard_bytes_ = StackPool::guard_bytes();
  std::unique_ptr<Gathered[]> gathered_;       // kGatheredPerWarp per warp
  std::unique_ptr<ShuffleRing[]> rings_;       // one per warp
  unsigned long long deposits_[32][32];        // per warp, per lane: the value brought to a warp barrier
  std::uint64_t order_state_ = 0;  // the seeded stream of resume choices; 0: FIFO
  unsigned warps_ = 0;
  unsigned warp_order_[32];        // seeded: warps by priority
  unsigned ready_lanes_[32];       // seeded: the ready lanes of each warp
  SharedArena smem_;

  BlockTask task_;
  unsigned threads_ = 0;
  unsigned active_queries_[32];  // per warp: lanes waiting in __activemask
  unsigned at_warp_barrier_[32];  // per warp: lanes waiting at a warp barrier
  // Per warp: the mask and intrinsic of the lanes waiting there, and whether any waiting lane
  // differs from them (then a completion looks at every member).
  unsigned waiting_mask_[32];
  const char* waiting_op_[32];
  bool waiting_mixed_[32];
  unsigned exited_lanes_[32];     // per warp: lanes that have exited
  unsigned block_waiters_[32];    // per warp: lanes waiting at __syncthreads
  // Per warp: the fewest whole-warp shuffles passed by a lane that has exited or waits at
  // __syncthreads (kNever: none has), so that a shuffle checks those lanes only when one of them
  // has not come to it.
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::uint64_t stopped_shuffles_[32];
  unsigned at_block_barrier_ = 0;
  unsigned at_cluster_barrier_ = 0;
  unsigned char* dynamic_smem_ = nullptr;
  int block_count_ = 0;
  unsigned exited_ = 0;
  int first_exited_ = -1;
  bool faulted_ = false;
  std::string error_;
  Lane* current_ = nullptr;

  // Warp loops (loops_begin, warp_loops.cpp; the state in warp_loop_state.hpp).
  void settle_loop_warp(unsigned warp);
  void take_shuffle_records(unsigned warp);
  bool settle_shuffle_records_in_step(unsigned warp);
  bool settle_loop_warp_in_step(unsigned warp);
  void settle_loop_shuffles(unsigned warp);
  void settle_loop_block_barrier();
  void ready_at(unsigned linear, unsigned region);
  [[gnu::always_inline]] LoopLane& post_at_warp_barrier(unsigned barrier, unsigned mask, const char* op,
                                                          unsigned long long value, bool gather);
  void adopt_loop_stack();
  Lane& loop_current();
  void release_loop_gather(unsigned linear);
  void publish_loop_waits();
  [[noreturn, gnu::cold, gnu::noinline]] void loop_deadlock();
  [[gnu::cold, gnu::noinline]] void check_whole_warp_arrivals(unsigned warp, unsigned lane);
  [[noreturn, gnu::cold, gnu::noinline]] void fault_other_shuffle(const LoopSlot& slot, unsigned mask,
                                                                  const char* op);
  [[noreturn, gnu::cold, gnu::noinline]] void fault_loop_group(unsigned warp, unsigned lane, unsigned other);
  WarpLoopState loop_;
};

}  // namespace hone::emu
