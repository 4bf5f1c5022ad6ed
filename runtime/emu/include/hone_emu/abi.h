#pragma once
// The contract between a kernel compiled for the emu device and the hone_emu_rt runtime that
// runs it. Both sides include this header; its contents are part of the emu cache key.
#include "hone_emu/vector_types.h"

// What a running CUDA thread sees of itself. The runtime points hone_emu_self at the running
// thread's record before every fiber switch.
struct hone_emu_thread {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  unsigned int linear;          // linear id in the block: x fastest, then y, then z
  unsigned int lane;            // linear % 32
  unsigned char* dynamic_smem;  // this block's extern __shared__ buffer
  dim3 cluster_dim;             // blocks per cluster, (1,1,1) for a launch without clusters
};

extern "C" {
// initial-exec: every threadIdx, blockIdx and lane id reads it, and the runtime that defines it is
// loaded with the process (static TLS), so a kernel object reaches it without __tls_get_addr.
extern __thread hone_emu_thread* hone_emu_self __attribute__((tls_model("initial-exec")));

// Block barrier; returns how many threads of the block passed a non-zero predicate.
int hone_emu_syncthreads(int predicate);
// Warp barrier among the lanes in mask, all calling the same intrinsic `op`: each deposits
// `value` and receives every participant's value (indexed by lane), valid until the caller's
// next call into the runtime; *group is the set of lanes that took part (mask without lanes
// beyond a partial last warp).
const unsigned long long* hone_emu_warp_gather(unsigned int mask, const char* op, unsigned long long value,
                                               unsigned int* group);
// A shuffle among the lanes in mask, all calling the same intrinsic `op`: returns the value lane
// `src` brought (the caller's own when src is negative or outside the group). A lane goes on as
// soon as the value it reads is there; with a mask naming the whole warp the runtime need not
// wait for the others, so a shuffle is not a warp barrier (neither is it on the GPU).
unsigned long long hone_emu_warp_shuffle(unsigned int mask, const char* op, unsigned long long value, int src);
// cluster.sync(): a barrier of every thread of every block of the caller's cluster.
void hone_emu_cluster_sync(void);
// The address in the shared memory of block `rank` of the caller's cluster that corresponds to
// `address` in the caller's own (cluster.map_shared_rank); faults when `address` is not in the
// caller's shared memory or the rank is not in the cluster.
void* hone_emu_map_shared_rank(const void* address, unsigned int rank);
// Lanes of the caller's warp that have not exited.
unsigned int hone_emu_activemask(void);
// Ends the launch with a fault naming the block and thread; does not return.
__attribute__((noreturn)) void hone_emu_fault(const char* reason);
__attribute__((noreturn)) void hone_emu_assert_fail(const char* expr, const char* file, unsigned int line,
                                                    const char* function);
long long hone_emu_clock64(void);

// A kernel compiled as warp loops (runtime/emu/warp_loops) calls these instead of the barriers
// above; the compiler inserts the calls, no source names them. begin: this call of the kernel runs
// every thread of the block; the block record it returns holds the threads' variables (a frame of
// `frame_bytes_per_thread` bytes each) and what the kernel reads without a call. next: the region
// to run next (-1: every thread has exited) for the group of lanes the record names; the kernel
// makes each the running thread in turn (hone_emu_self = threads[linear]). A lane ends its region
// by posting at a barrier (numbered in the kernel) or by exiting; after the barrier completes, the
// region that follows it takes the result (a whole-warp shuffle's from `results`).
// A lane's post at a shuffle whose mask is the constant whole warp, written by the kernel itself
// where the block record offers a place (`shuffles`, in plain order): a store instead of a call,
// the commonest post of all. The runtime takes the group's records at its next call, as if each
// lane had called hone_emu_wl_shuffle_post, and marks them taken.
struct hone_emu_wl_shuffle_record {
  unsigned long long value;
  const char* op;
  unsigned int barrier;  // ~0u: taken (nothing posted here since)
  int src;
};
struct hone_emu_loop_block {
  unsigned char* frame;
  hone_emu_thread* const* threads;     // by linear id
  const unsigned long long* results;   // by linear id: the value its last shuffle read
  unsigned int warp;                   // the warp of the group to run
  unsigned int group_size;
  unsigned int group[32];              // its lanes, in the order they run
  struct hone_emu_wl_shuffle_record* shuffles;  // by linear id; null: every post calls the runtime
};
struct hone_emu_loop_block* hone_emu_wl_begin(unsigned long long frame_bytes_per_thread);
int hone_emu_wl_next(void);
void hone_emu_wl_exit(void);
void hone_emu_wl_shuffle_post(unsigned int barrier, unsigned int mask, const char* op, unsigned long long value,
                              int src);
void hone_emu_wl_gather_post(unsigned int barrier, unsigned int mask, const char* op, unsigned long long value);
const unsigned long long* hone_emu_wl_gather_take(unsigned int* group);
void hone_emu_wl_sync_post(unsigned int barrier, int predicate);
int hone_emu_wl_sync_take(void);
}
