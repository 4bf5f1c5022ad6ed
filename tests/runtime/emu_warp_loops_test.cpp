// Kernels compiled as warp loops (runtime/emu/warp_loops): which kernels the plugin rewrites, and
// that a rewritten one computes, faults and shows races as it does on fibers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "emu_test_support.hpp"
#include "runtime/emu_device.hpp"
#include "support/scoped_env.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

// Kernels built by the default compiler with the plugin, whatever the environment asks for.
struct WarpLoopsOn {
  test::ScopedEnv compiler{"HONE_EMU_CXX", nullptr};
  test::ScopedEnv loops{"HONE_EMU_WARP_LOOPS", "1"};
};

// uniform_barriers' answer for thread t of a block whose inputs are `in`.
float uniform_expected(const std::vector<float>& in, int block, int threads, int t, int pick) {
  float total = 0.0f;
  int positive = 0;
  for (int u = 0; u < threads; ++u) {
    total += in[static_cast<std::size_t>(block * threads + u)];
    positive += in[static_cast<std::size_t>(block * threads + u)] > 0.0f;
  }
  const float mine = in[static_cast<std::size_t>(block * threads + t)];
  return total + mine * static_cast<float>((pick + t) % 8 + 1) + static_cast<float>(positive);
}

}  // namespace

TEST_CASE("warp loops (emu): shuffles, a counting __syncthreads and a run-time indexed array, one fiber a block") {
  const WarpLoopsOn loops;
  const EmuModule m = build("warp_loops.cu", "uniform_barriers", {"float*", "const float*", "int"});
  for (const int threads : {32, 96, 256}) {
    for (const std::uint64_t seed : {0ull, 3ull, 17ull}) {
      CAPTURE(threads);
      CAPTURE(seed);
      const int blocks = 5, pick = 3;
      std::vector<float> in(static_cast<std::size_t>(blocks * threads)), out(in.size(), -1.0f);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i % 13) - 4);
      float* o = out.data();
      const float* x = in.data();
      int p = pick;
      auto a = args(o, x, p);
      const std::uint64_t before = emu_fiber_switches();
      m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data(), seed);
      CHECK(emu_fiber_switches() - before == blocks);  // one fiber per block: no switch between threads
      int wrong = 0;
      for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t)
          wrong += out[static_cast<std::size_t>(b * threads + t)] != uniform_expected(in, b, threads, t, pick);
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("warp loops (emu): in plain order a whole-warp shuffle's post is a store, in a seeded order a call, alike in results") {
  const EmuModule on_fibers = [] {
    const test::ScopedEnv fibers{"HONE_EMU_WARP_LOOPS", "0"};
    return build("warp_loops.cu", "uniform_barriers", {"float*", "const float*", "int"});
  }();
  const WarpLoopsOn loops;
  const EmuModule m = build("warp_loops.cu", "uniform_barriers", {"float*", "const float*", "int"});
  constexpr int kShuffles = 5;  // uniform_barriers' butterfly
  const int blocks = 3;
  for (const int threads : {32, 48, 256}) {  // 48: a last warp of 16 lanes, whose butterfly reads lanes that do not exist
    CAPTURE(threads);
    std::vector<float> in(static_cast<std::size_t>(blocks * threads));
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i % 11) - 5);
    const float* x = in.data();
    int pick = 1;
    auto run = [&](const EmuModule& module, std::uint64_t seed) {
      std::vector<float> out(in.size(), -1.0f);
      float* o = out.data();
      auto a = args(o, x, pick);
      module.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data(), seed);
      return out;
    };
    const std::vector<float> expected = run(on_fibers, 0);
    if (threads % 32 == 0)
      for (int t = 0; t < blocks * threads; ++t)
        REQUIRE(expected[static_cast<std::size_t>(t)] == uniform_expected(in, t / threads, threads, t % threads, pick));
    for (const std::uint64_t seed : {0ull, 9ull}) {
      CAPTURE(seed);
      const std::uint64_t before = emu_shuffle_records();
      CHECK(run(m, seed) == expected);
      CHECK(emu_shuffle_records() - before == (seed == 0 ? static_cast<std::uint64_t>(blocks * threads * kShuffles) : 0u));
    }
  }
}

TEST_CASE("warp loops (emu): __syncthreads in a loop, with threads that branch around their work, runs as loops") {
  const WarpLoopsOn loops;
  const EmuModule m = build("block_reduce.cu", "block_sum", {"float*", "const float*", "int"});
  for (const int threads : {64, 256}) {
    CAPTURE(threads);
    const int blocks = 3, n = blocks * threads - 5;  // the last block is partly empty
    std::vector<float> in(static_cast<std::size_t>(n)), out(blocks, 0.0f);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i % 7);
    float* o = out.data();
    const float* x = in.data();
    int count = n;
    auto a = args(o, x, count);
    const std::uint64_t before = emu_fiber_switches();
    m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data(), 5);
    CHECK(emu_fiber_switches() - before == blocks);
    for (int b = 0; b < blocks; ++b) {
      float expect = 0.0f;
      for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) expect += in[static_cast<std::size_t>(i)];
      CHECK(out[static_cast<std::size_t>(b)] == expect);
    }
  }
}

TEST_CASE("warp loops (emu): a kernel that asks for __activemask runs as fibers") {
  const WarpLoopsOn loops;
  const EmuModule m = build("warp_loops.cu", "asks_active_mask", {"unsigned*"});
  const int n = 64;
  std::vector<unsigned> active(n, 0);
  unsigned* o = active.data();
  auto a = args(o);
  const std::uint64_t before = emu_fiber_switches();
  m.launch(dims({1, 1, 1}, {n, 1, 1}), a.data());
  CHECK(emu_fiber_switches() - before > static_cast<std::uint64_t>(n));  // a fiber per thread, at least
  for (const unsigned mask : active) CHECK(mask == 0xffffffffu);
}

TEST_CASE("warp loops (emu): a shuffle whose mask leaves out its caller faults as it does on fibers") {
  std::string message[2];
  for (const char* mode : {"0", "1"}) {
    const test::ScopedEnv compiler("HONE_EMU_CXX", nullptr);
    const test::ScopedEnv loops("HONE_EMU_WARP_LOOPS", mode);
    const EmuModule m = build("warp_loops.cu", "mask_without_caller", {"float*"});
    std::vector<float> out(32, 0.0f);
    float* o = out.data();
    auto a = args(o);
    message[mode[0] - '0'] = fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data());
  }
  INFO(message[1]);
  CHECK(has(message[1], "__shfl_sync in block (0,0,0) thread ("));
  CHECK(has(message[1], "does not include the calling lane"));
  CHECK(has(message[0], "does not include the calling lane"));
}

TEST_CASE("warp loops (emu): a read of the next warp's shared memory with no barrier between finds it still poisoned") {
  const WarpLoopsOn loops;
  const EmuModule m = build("warp_loops.cu", "reads_next_warp_unsynced", {"float*", "const float*"});
  const int threads = 128;
  std::vector<float> in(threads);
  for (int t = 0; t < threads; ++t) in[static_cast<std::size_t>(t)] = static_cast<float>(t);
  int poisoned_runs = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    std::vector<float> out(threads, 0.0f);
    float* o = out.data();
    const float* x = in.data();
    auto a = args(o, x);
    const std::uint64_t before = emu_fiber_switches();
    m.launch(dims({1, 1, 1}, {threads, 1, 1}), a.data(), seed);
    REQUIRE(emu_fiber_switches() - before == 1);  // it ran as loops
    bool poisoned = false;
    for (const float v : out) poisoned |= std::isnan(v);
    poisoned_runs += poisoned;
  }
  // Warp w reads warp w + 1 (mod 4): in any order some warp reads before the one it reads writes.
  CHECK(poisoned_runs == 8);
}

TEST_CASE("warp loops (emu): seeded orders let lanes pass a whole-warp shuffle before others reach it, as fibers do") {
  const WarpLoopsOn loops;
  const EmuModule m = build("scheduler.cu", "shuffle_orders_nothing", {"float*", "int"});
  auto poisoned_runs = [&](int sync_warp) {
    int runs = 0;
    for (std::uint64_t seed = 1; seed <= 16; ++seed) {
      std::vector<float> out(32, 0.0f);
      float* o = out.data();
      auto a = args(o, sync_warp);
      const std::uint64_t before = emu_fiber_switches();
      m.launch(dims({1, 1, 1}, {32, 1, 1}), a.data(), seed);
      REQUIRE(emu_fiber_switches() - before == 1);  // it ran as loops
      runs += std::any_of(out.begin(), out.end(), [](float v) { return std::isnan(v); });
    }
    return runs;
  };
  // Lanes below 16 read their own value, go on, and read what lanes 16 and up have not written.
  const int racy = poisoned_runs(0);
  MESSAGE(racy << " of 16 seeded runs read the poison");
  CHECK(racy >= 4);
  CHECK(poisoned_runs(1) == 0);  // __syncwarp orders it
}

TEST_CASE("warp loops (emu): one intrinsic with one mask at two call sites is one barrier") {
  const WarpLoopsOn loops;
  const EmuModule m = build("warp_loops.cu", "two_call_sites", {"float*", "const float*"});
  std::vector<float> in(32);
  for (int l = 0; l < 32; ++l) in[static_cast<std::size_t>(l)] = static_cast<float>(l);
  for (const std::uint64_t seed : {0ull, 1ull, 2ull, 3ull}) {
    CAPTURE(seed);
    std::vector<float> out(32, -1.0f);
    float* o = out.data();
    const float* x = in.data();
    auto a = args(o, x);
    const std::uint64_t before = emu_fiber_switches();
    m.launch(dims({1, 1, 1}, {32, 1, 1}), a.data(), seed);
    CHECK(emu_fiber_switches() - before == 1);
    for (int l = 0; l < 32; ++l) CHECK(out[static_cast<std::size_t>(l)] == static_cast<float>((l ^ 1) ^ 16));
  }
}
