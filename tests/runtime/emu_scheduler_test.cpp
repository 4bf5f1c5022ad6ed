// The block scheduler's hand-over from thread to thread (runtime/emu/rt/block_scheduler.cpp):
// values a warp barrier hands out stay right under every schedule, even when lanes race ahead
// to the next barrier or two groups of one warp complete interleaved; a shuffle-only kernel
// still finds divergence; blocks on several OS threads (restarted in a forked child) still find
// an out-of-bounds write; the threads of a faulted block that wait are unwound.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "emu_child_process.hpp"
#include "emu_test_support.hpp"
#include "support/scoped_env.hpp"
#include "runtime/emu_device.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

constexpr int kBlocks = 4, kThreads = 96;  // three warps a block

std::vector<int> shuffle_chain_expected(int rounds) {
  std::vector<int> want(kBlocks * kThreads);
  for (int t = 0; t < kBlocks * kThreads; ++t) {
    const int lane = t % 32;
    int sum = 0;
    for (int r = 0; r < rounds; ++r) sum += (r + 1) * 1000 + (lane ^ (1 + r % 31));
    want[static_cast<std::size_t>(t)] = sum;
  }
  return want;
}

std::vector<int> half_warp_expected(int rounds) {
  std::vector<int> want(kBlocks * kThreads);
  for (int t = 0; t < kBlocks * kThreads; ++t) {
    const int lane = t % 32;
    const bool low = lane < 16;
    int sum = 0;
    for (int r = 0; r < (low ? 2 * rounds : rounds); ++r) {
      const int src = lane + 1 + r % 7;
      const int seg_end = (lane & ~15) + 16;
      sum += (r + 1) * 100 + (src < seg_end ? src : lane);
    }
    want[static_cast<std::size_t>(t)] = sum;
  }
  return want;
}

}  // namespace

TEST_CASE("emu scheduler: a lane that races on to its next shuffle does not change what the others read, in any order") {
  const EmuModule m = build("scheduler.cu", "shuffle_chain", {"int*", "int"});
  int rounds = 40;
  const std::vector<int> want = shuffle_chain_expected(rounds);
  for (std::uint64_t seed : {0ull, 1ull, 7ull, 12345ull}) {
    std::vector<int> out(want.size(), -1);
    int* o = out.data();
    auto a = args(o, rounds);
    m.launch(dims({kBlocks, 1, 1}, {kThreads, 1, 1}), a.data(), seed);
    INFO("seed " << seed);
    CHECK(out == want);
  }
}

TEST_CASE("emu scheduler: a lane that never waits runs ahead of its readers by many shuffles, and they still read its values") {
  const EmuModule m = build("scheduler.cu", "down_chain", {"int*", "int"});
  int rounds = 50;  // far more shuffles than lanes may drift apart
  std::vector<int> want(kBlocks * kThreads);
  for (int b = 0; b < kBlocks * kThreads / 32; ++b) {
    std::vector<int> v(32), sum(32, 0);
    for (int l = 0; l < 32; ++l) v[static_cast<std::size_t>(l)] = l;
    for (int r = 0; r < rounds; ++r) {
      std::vector<int> next(32);
      for (int l = 0; l < 32; ++l) next[static_cast<std::size_t>(l)] = v[static_cast<std::size_t>(l < 31 ? l + 1 : l)] + r;
      v = next;
      for (int l = 0; l < 32; ++l) sum[static_cast<std::size_t>(l)] += v[static_cast<std::size_t>(l)];
    }
    for (int l = 0; l < 32; ++l) want[static_cast<std::size_t>(b * 32 + l)] = sum[static_cast<std::size_t>(l)];
  }
  for (std::uint64_t seed : {0ull, 5ull, 4242ull}) {
    std::vector<int> out(want.size(), -1);
    int* o = out.data();
    auto a = args(o, rounds);
    INFO("seed " << seed);
    CHECK(fault_of(m, dims({kBlocks, 1, 1}, {kThreads, 1, 1}), a.data(), seed).empty());
    CHECK(out == want);
  }
}

TEST_CASE("emu scheduler: a faulted block's suspended threads are unwound, their destructors run, and the next launch runs") {
  const EmuModule m = build("scheduler.cu", "trap_while_others_wait", {"int*"});
  std::vector<int> marks(64, 0);
  int* o = marks.data();
  auto a = args(o);
  CHECK(has(fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a.data()), "__trap()"));
  CHECK(marks == std::vector<int>(64, 1));
  std::fill(marks.begin(), marks.end(), 0);
  CHECK(has(fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a.data()), "__trap()"));
  CHECK(marks == std::vector<int>(64, 1));
}

TEST_CASE("emu scheduler: a full-warp shuffle is not a warp barrier, so shared memory written before it and read after needs __syncwarp") {
  // Fibers in plain order: lane 0 runs first and on. (Run as warp loops, a seeded order shows
  // the same: tests/runtime/emu_warp_loops_test.cpp.)
  const test::ScopedEnv fibers("HONE_EMU_WARP_LOOPS", "0");
  const EmuModule m = build("scheduler.cu", "shuffle_orders_nothing", {"float*", "int"});
  auto run = [&](int sync_warp) {
    std::vector<float> out(32, 0.0f);
    float* o = out.data();
    auto a = args(o, sync_warp);
    m.launch(dims({1, 1, 1}, {32, 1, 1}), a.data());
    return out;
  };
  const std::vector<float> racy = run(0);
  CHECK(std::isnan(racy[0]));  // lane 0 needs no one's value, goes on, and reads the poison
  const std::vector<float> synced = run(1);
  for (int l = 0; l < 32; ++l) CHECK(synced[static_cast<std::size_t>(l)] == static_cast<float>(l < 16 ? l + 16 : l - 16));
}

TEST_CASE("emu scheduler: a vote against a shuffle with the same mask is barrier divergence, named by both intrinsics") {
  const EmuModule m = build("scheduler.cu", "vote_against_shuffle", {"float*"});
  std::vector<float> out(32, 0.0f);
  float* o = out.data();
  auto a = args(o);
  const std::string why = fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "barrier divergence in block (0,0,0)"));
  CHECK(has(why, "__ballot_sync (mask 0xffffffff)"));
  CHECK(has(why, "__shfl_sync (mask 0xffffffff)"));
}

TEST_CASE("emu scheduler: two groups of one warp with masks of their own complete interleaved, each with its own values") {
  const EmuModule m = build("scheduler.cu", "half_warp_groups", {"int*", "int"});
  int rounds = 25;
  const std::vector<int> want = half_warp_expected(rounds);
  for (std::uint64_t seed : {0ull, 3ull, 99ull}) {
    std::vector<int> out(want.size(), -1);
    int* o = out.data();
    auto a = args(o, rounds);
    m.launch(dims({kBlocks, 1, 1}, {kThreads, 1, 1}), a.data(), seed);
    INFO("seed " << seed);
    CHECK(out == want);
  }
}

TEST_CASE("emu scheduler: a shuffle-only kernel whose lanes meet at two different shuffles is barrier divergence") {
  const EmuModule m = build("scheduler.cu", "two_intrinsics", {"float*", "int"});
  std::vector<float> out(32, 0.0f);
  float* o = out.data();
  int split = 8;
  auto a = args(o, split);
  const std::string why = fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "barrier divergence in block (0,0,0)"));
  CHECK(has(why, "__shfl_xor_sync (mask 0xffffffff)"));
  CHECK(has(why, "__shfl_down_sync (mask 0xffffffff)"));

  split = 32;  // every lane at the same shuffle: the module still runs correctly
  CHECK(fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data()).empty());
  for (int t = 0; t < 32; ++t) CHECK(out[static_cast<std::size_t>(t)] == static_cast<float>(t ^ 1));
}

TEST_CASE("emu scheduler: a forked child starts its block threads again, and blocks on them still hit a guard page") {
  auto device = make_emu_device("sm_90");
  const KernelImage image = build_image("guards.cu", "write_at", {"float*", "int", "int", "long long"});
  auto kernel = device->load(image);
  void* out = device->alloc(4096 * sizeof(float));
  device->name_buffer(out, "out");
  int n = 4096, who = 4000;
  long long at = 4096 + 3;
  auto a = args(out, n, who, at);
  start_emu_threads();  // the parent's pool exists before the fork, as a worker's may
  const ChildEnd end = run_in_child([&] {
    std::fprintf(stderr, "block threads: %u\n", start_emu_threads());
    device->launch(*kernel, dims({64, 1, 1}, {64, 1, 1}), a.data());
  });
  INFO(end.fault << end.stderr_text);
  CHECK(end.exit_code == kFatalFaultExit);
  CHECK(has(end.fault, "out-of-bounds write to buffer 'out'"));
  CHECK(has(end.fault, "in block (62,0,0) thread (32,0,0)"));
  const unsigned cores = std::thread::hardware_concurrency();
  const std::string expected = "block threads: " + std::to_string(cores > 1 ? cores : 1);
  if (!std::getenv("HONE_EMU_THREADS")) CHECK(has(end.stderr_text, expected));
  device->release(out);
}
