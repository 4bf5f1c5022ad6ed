// Block barriers and static shared memory on the emu device.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <vector>

#include "emu_test_support.hpp"
#include "support/scoped_env.hpp"
#include "runtime/emu_device.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: block reduction in static shared memory, many blocks at once") {
  const EmuModule m = build("block_reduce.cu", "block_sum", {"float*", "const float*", "int"});
  for (const int threads : {32, 256, 1024}) {
    CAPTURE(threads);
    const int blocks = 37, n = blocks * threads - 5;  // the last block is partly empty
    std::vector<float> in(static_cast<std::size_t>(n)), out(blocks, -1.0f);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i % 97) - 40.0f;
    float* o = out.data();
    const float* x = in.data();
    int count = n;
    auto a = args(o, x, count);
    m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data());
    for (int b = 0; b < blocks; ++b) {
      double expect = 0;  // small integers: every float partial sum is exact
      for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) expect += in[static_cast<std::size_t>(i)];
      CHECK(static_cast<double>(out[static_cast<std::size_t>(b)]) == expect);
    }
  }
}

TEST_CASE("emu: __syncthreads_count, _and and _or") {
  const EmuModule m = build("block_reduce.cu", "barrier_votes", {"int*", "const int*"});
  const int blocks = 4, threads = 96;
  std::vector<int> flags(blocks * threads, 0), out(3 * blocks, -1);
  for (int t = 0; t < threads; ++t) {
    flags[0 * threads + t] = 0;           // none
    flags[1 * threads + t] = 1;           // all
    flags[2 * threads + t] = t % 3 == 0;  // some
    flags[3 * threads + t] = t == 95;     // one, in the last warp
  }
  int* o = out.data();
  const int* f = flags.data();
  auto a = args(o, f);
  m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data());
  CHECK(out == std::vector<int>{0, 0, 0, 96, 1, 1, 32, 0, 1, 1, 0, 1});
}

TEST_CASE("emu: a 1024-thread block synchronises every thread") {
  const EmuModule m = build("block_reduce.cu", "block_sum", {"float*", "const float*", "int"});
  std::vector<float> in(1024, 1.0f), out(1, 0.0f);
  float* o = out.data();
  const float* x = in.data();
  int n = 1024;
  auto a = args(o, x, n);
  m.launch(dims({1, 1, 1}, {1024, 1, 1}), a.data());
  CHECK(out[0] == 1024.0f);
}

TEST_CASE("emu: 64 blocks of 256 threads with two barriers, and how long such a launch takes") {
  const EmuModule m = build("block_reduce.cu", "rotate_pairs", {"float*", "const float*"});
  const int blocks = 64, threads = 256, n = blocks * threads;
  std::vector<float> in(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
  float* o = out.data();
  const float* x = in.data();
  auto a = args(o, x);
  std::vector<double> ms;
  for (int rep = 0; rep < 9; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  MESSAGE("emu launch of 64 x 256 threads with two __syncthreads: median " << ms[ms.size() / 2] << " ms");
  for (int i = 0; i < n; ++i) {
    const int b = i / threads, t = i % threads;
    CHECK(out[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(i)] + in[static_cast<std::size_t>(b * threads + (t + 1) % threads)]);
  }
}

TEST_CASE("emu: fiber switches are counted: one per thread to start, one more per barrier it waits at") {
  const test::ScopedEnv fibers("HONE_EMU_WARP_LOOPS", "0");  // run as warp loops, a block is one fiber
  const EmuModule m = build("block_reduce.cu", "rotate_pairs", {"float*", "const float*"});
  std::vector<float> in(4 * 64, 1.0f), out(4 * 64, 0.0f);
  float* o = out.data();
  const float* x = in.data();
  auto a = args(o, x);
  const std::uint64_t before = emu_fiber_switches();
  m.launch(dims({4, 1, 1}, {64, 1, 1}), a.data());
  CHECK(emu_fiber_switches() - before == 4 * 64 * 3);  // two __syncthreads: three runs per thread
}
