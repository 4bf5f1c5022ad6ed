// The schedule seed: a racy kernel gives different results under different seeds (so comparing
// two runs exposes the race), the same result under the same seed, and a race-free kernel gives
// the same result under every seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "emu_test_support.hpp"
#include "runtime/emu/rt/schedule_order.hpp"
#include "runtime/emu_device.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

std::vector<int> last_writers(const EmuModule& m, std::uint64_t seed) {
  std::vector<int> out(32, -1);
  int* o = out.data();
  auto a = args(o);
  m.launch(dims({32, 1, 1}, {128, 1, 1}), a.data(), seed);
  return out;
}

std::vector<float> neighbours(const EmuModule& m, std::uint64_t seed) {
  const int blocks = 8, threads = 256;
  std::vector<float> in(blocks * threads), out(blocks * threads, 0.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  float* o = out.data();
  const float* x = in.data();
  auto a = args(o, x);
  m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data(), seed);
  return out;
}

// NaN compares unequal to itself; outputs are compared bit for bit.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("emu: a write race on shared memory gives different results under different schedule seeds") {
  const EmuModule m = build("schedule.cu", "last_writer_wins", {"int*"});
  const std::vector<int> plain = last_writers(m, 0);
  CHECK(plain == std::vector<int>(32, 127));  // in the plain order the last thread writes last
  const std::vector<int> one = last_writers(m, 1), two = last_writers(m, 2);
  CHECK(one != plain);
  CHECK(two != plain);
  CHECK(one != two);
  CHECK(std::set<int>(one.begin(), one.end()).size() > 1);  // each block draws its own order
  CHECK(last_writers(m, 1) == one);                          // the same seed replays the same schedule
  CHECK(last_writers(m, 0) == plain);
}

TEST_CASE("emu: a missing barrier shows as a read of poison in one schedule and a value in another") {
  const EmuModule m = build("schedule.cu", "missing_barrier", {"float*", "const float*"});
  const std::vector<float> plain = neighbours(m, 0), seeded = neighbours(m, 7);
  CHECK(std::isnan(plain[0]));  // thread 0 reads slot 1 before thread 1 wrote it
  CHECK(std::count_if(seeded.begin(), seeded.end(), [](float v) { return !std::isnan(v); }) > 0);
  CHECK_FALSE(same_bits(plain, seeded));
  CHECK(same_bits(neighbours(m, 7), seeded));
}

TEST_CASE("emu: a kernel without races gives the same result under every schedule seed") {
  const EmuModule m = build("schedule.cu", "with_barrier", {"float*", "const float*"});
  const std::vector<float> plain = neighbours(m, 0);
  for (std::uint64_t seed : {1ull, 2ull, 0x5eed5eedull, ~0ull}) {
    CAPTURE(seed);
    CHECK(same_bits(neighbours(m, seed), plain));
  }
  CHECK(plain[0] == 1.0f);
  CHECK(plain[255] == 0.0f);
}

TEST_CASE("emu device: set_schedule_seed applies to later launches until it is set back to 0") {
  auto device = make_emu_device("sm_90");
  const KernelImage image = build_image("schedule.cu", "last_writer_wins", {"int*"});
  auto kernel = device->load(image);
  void* out = device->alloc(32 * sizeof(int));
  auto a = args(out);
  auto run = [&] {
    device->launch(*kernel, dims({32, 1, 1}, {128, 1, 1}), a.data());
    std::vector<int> got(32);
    device->download(got.data(), out, 32 * sizeof(int));
    return got;
  };
  CHECK(run() == std::vector<int>(32, 127));
  device->set_schedule_seed(3);
  CHECK(run() != std::vector<int>(32, 127));
  device->set_schedule_seed(0);
  CHECK(run() == std::vector<int>(32, 127));
  device->release(out);
}

TEST_CASE("emu: the seeded block order is a permutation, the identity for seed 0, and fixed by its seed") {
  for (std::int64_t count : {1, 2, 3, 7, 64, 1000, 4096}) {
    for (std::uint64_t seed : {0ull, 1ull, 99ull}) {
      CAPTURE(count);
      CAPTURE(seed);
      const emu::BlockOrder order(seed, count), again(seed, count);
      std::vector<std::int64_t> seen;
      bool moved = false;
      for (std::int64_t i = 0; i < count; ++i) {
        seen.push_back(order(i));
        CHECK(order(i) == again(i));
        moved |= order(i) != i;
      }
      std::sort(seen.begin(), seen.end());
      for (std::int64_t i = 0; i < count; ++i) CHECK(seen[static_cast<std::size_t>(i)] == i);
      if (seed == 0) CHECK_FALSE(moved);
      if (seed != 0 && count >= 7) CHECK(moved);
    }
  }
}

TEST_CASE("emu: a seeded schedule lets a warp run ahead, exposing a __syncthreads missing between warps") {
  const EmuModule m = build("schedule.cu", "stage_without_barrier", {"float*", "const float*"});
  auto run = [&](std::uint64_t seed) {
    std::vector<float> table(256), out(4 * 256, 0.0f);
    for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<float>(i);
    float* o = out.data();
    const float* x = table.data();
    auto a = args(o, x);
    m.launch(dims({4, 1, 1}, {256, 1, 1}), a.data(), seed);
    return std::count_if(out.begin(), out.end(), [](float v) { return std::isnan(v); });
  };
  CHECK(run(0) == 0);  // warps in step: every entry is staged before any is read
  CHECK(run(1) > 0);   // a warp that runs ahead reads entries not staged yet: the poison
}
