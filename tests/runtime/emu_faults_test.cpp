// Faults the emulator must detect, name, and survive: the module stays usable afterwards.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: threads that exit while others wait at __syncthreads are barrier divergence") {
  const EmuModule m = build("faults.cu", "exit_before_barrier", {"float*", "int"});
  std::vector<float> out(64, 0.0f);
  float* o = out.data();
  int n = 40;
  auto a = args(o, n);
  const std::string why = fault_of(m, dims({2, 1, 1}, {64, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "barrier divergence"));
  CHECK(has(why, "block (0,0,0)"));
  CHECK(has(why, "__syncthreads"));
  CHECK(has(why, "thread (40,0,0)"));  // the first thread to leave
  CHECK(has(why, "exited"));

  n = 64;  // nobody leaves: the same module now runs correctly
  CHECK(fault_of(m, dims({2, 1, 1}, {64, 1, 1}), a.data()).empty());
  CHECK(out == std::vector<float>(64, 1.0f));
}

TEST_CASE("emu: __syncthreads in some lanes against a warp shuffle in others is barrier divergence") {
  const EmuModule m = build("faults.cu", "barrier_mix", {"float*", "int"});
  std::vector<float> out(64, 0.0f);
  float* o = out.data();
  int split = 1;
  auto a = args(o, split);
  const std::string why = fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "barrier divergence in block (0,0,0)"));
  CHECK(has(why, "thread (0,0,0) waits at __syncthreads"));
  CHECK(has(why, "thread (16,0,0) waits at __shfl_xor_sync (mask 0xffffffff)"));

  split = 0;
  CHECK(fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a.data()).empty());
  for (int t = 0; t < 64; ++t) CHECK(out[static_cast<std::size_t>(t)] == static_cast<float>(t ^ 1));
}

TEST_CASE("emu: a warp intrinsic whose mask names an exited lane is a fault") {
  const EmuModule m = build("faults.cu", "shuffle_exited_lane", {"float*", "int"});
  std::vector<float> out(32, 0.0f);
  float* o = out.data();
  int gone = 5;
  auto a = args(o, gone);
  const std::string why = fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "__shfl_down_sync"));
  CHECK(has(why, "lane 5 (thread (5,0,0))"));
  CHECK(has(why, "has exited"));
  CHECK(has(why, "block (0,0,0) thread ("));

  gone = 99;  // nobody exits early
  CHECK(fault_of(m, dims({1, 1, 1}, {32, 1, 1}), a.data()).empty());
  for (int t = 0; t < 32; ++t) CHECK(out[static_cast<std::size_t>(t)] == static_cast<float>(t < 31 ? t + 1 : t));
}

TEST_CASE("emu: __trap and a failed assert end the launch with the thread named") {
  const EmuModule m = build("faults.cu", "trap_or_assert", {"int*", "int"});
  std::vector<int> out(4 * 64, 0);
  int* o = out.data();
  int which = 1;
  auto a = args(o, which);
  std::string why = fault_of(m, dims({4, 1, 1}, {64, 1, 1}), a.data());
  INFO(why);
  CHECK(has(why, "__trap()"));
  CHECK(has(why, "block (1,0,0) thread (3,0,0)"));

  which = 2;
  why = fault_of(m, dims({4, 1, 1}, {64, 1, 1}), a.data());
  CHECK(has(why, "assertion"));
  CHECK(has(why, "kernel.cu:"));
  CHECK(has(why, "block (1,0,0) thread (3,0,0)"));

  which = 0;
  CHECK(fault_of(m, dims({4, 1, 1}, {64, 1, 1}), a.data()).empty());
  CHECK(out == std::vector<int>(4 * 64, 1));
}

TEST_CASE("emu: a fault in every block of a large launch cleans up all fibers, repeatedly") {
  const EmuModule m = build("faults.cu", "exit_before_barrier", {"float*", "int"});
  std::vector<float> out(1024, 0.0f);
  float* o = out.data();
  int n = 1000;
  auto a = args(o, n);
  for (int round = 0; round < 5; ++round)
    CHECK(has(fault_of(m, dims({64, 1, 1}, {1024, 1, 1}), a.data()), "barrier divergence"));
  n = 1024;
  CHECK(fault_of(m, dims({64, 1, 1}, {1024, 1, 1}), a.data()).empty());
}

TEST_CASE("emu: launches with an oversized block or a zero dimension are refused") {
  const EmuModule m = build("faults.cu", "exit_before_barrier", {"float*", "int"});
  std::vector<float> out(2048, 0.0f);
  float* o = out.data();
  int n = 2048;
  auto a = args(o, n);
  std::string why = fault_of(m, dims({1, 1, 1}, {2048, 1, 1}), a.data());
  CHECK(has(why, "1024"));
  why = fault_of(m, dims({1, 1, 1}, {32, 32, 2}), a.data());
  CHECK(has(why, "2048 threads"));
  why = fault_of(m, dims({0, 1, 1}, {32, 1, 1}), a.data());
  CHECK(has(why, "zero dimension"));
  why = fault_of(m, dims({1, 1, 1}, {32, 0, 1}), a.data());
  CHECK(has(why, "zero dimension"));
  CHECK(std::count(out.begin(), out.end(), 0.0f) == 2048);  // nothing ran
}
