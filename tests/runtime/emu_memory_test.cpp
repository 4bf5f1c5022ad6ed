// Dynamic shared memory, vector loads and atomics on the emu device.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <vector>

#include "core/dtype.hpp"
#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: dynamic shared memory declared in a kernel, per block, 16-byte aligned") {
  const EmuModule m = build("memory.cu", "reverse_block", {"float*", "int*", "const float*"});
  const int blocks = 64, threads = 128, n = blocks * threads;
  std::vector<float> in(n), out(n, 0.0f);
  std::vector<int> aligned(blocks, 0);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
  float* o = out.data();
  int* fl = aligned.data();
  const float* x = in.data();
  auto a = args(o, fl, x);
  m.launch(dims({blocks, 1, 1}, {threads, 1, 1}, threads * 8), a.data());
  for (int i = 0; i < n; ++i) {
    const int b = i / threads, t = i % threads;
    CHECK(out[static_cast<std::size_t>(i)] == static_cast<float>(b * threads + threads - 1 - t));
  }
  CHECK(std::count(aligned.begin(), aligned.end(), 1) == blocks);
}

TEST_CASE("emu: dynamic shared memory declared at namespace scope") {
  const EmuModule m = build("memory.cu", "reverse_quads", {"float4*", "const float4*"});
  const int blocks = 16, threads = 64, n = blocks * threads;
  std::vector<float> in(4 * n), out(4 * n, 0.0f);
  for (int i = 0; i < 4 * n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i);
  void* o = out.data();
  const void* x = in.data();
  auto a = args(o, x);
  m.launch(dims({blocks, 1, 1}, {threads, 1, 1}, threads * 16), a.data());
  for (int q = 0; q < n; ++q) {
    const int src = q / threads * threads + threads - 1 - q % threads;
    for (int c = 0; c < 4; ++c) CHECK(out[static_cast<std::size_t>(4 * q + c)] == static_cast<float>(4 * src + c));
  }
}

TEST_CASE("emu: running past the dynamic shared memory faults instead of corrupting memory") {
  const EmuModule m = build("memory.cu", "fill_shared", {"float*", "int"});
  std::vector<float> out(4, 0.0f);
  float* o = out.data();
  int count = 64;  // exactly the 256 bytes launched with
  auto a = args(o, count);
  m.launch(dims({4, 1, 1}, {32, 1, 1}, 256), a.data());
  CHECK(out == std::vector<float>(4, 1.0f));

  // One float too many lands on the guard page. The overrun kills the process that runs it (as
  // a worker process would die), so it runs in a child; the child also proves that launches
  // work after fork, without the pool's worker threads.
  count = 65;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGSEGV, SIG_DFL);  // the expected crash is not the test framework's to report
    try {
      m.launch(dims({4, 1, 1}, {32, 1, 1}, 256), a.data());
    } catch (...) {
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
}

TEST_CASE("emu: float4 loads and stores") {
  const EmuModule m = build("memory.cu", "scale_float4", {"float4*", "const float4*", "float", "int"});
  const int n4 = 1000;
  std::vector<float> in(4 * n4), out(4 * n4, -1.0f);
  for (int i = 0; i < 4 * n4; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>(i) * 0.25f;
  void* o = out.data();
  const void* x = in.data();
  float s = 3.0f;
  int count = n4;
  auto a = args(o, x, s, count);
  m.launch(dims({(n4 + 127) / 128, 1, 1}, {128, 1, 1}), a.data());
  for (int i = 0; i < 4 * n4; ++i) CHECK(out[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(i)] * 3.0f);
}

TEST_CASE("emu: bf16 data read 16 bytes at a time through uint4") {
  const EmuModule m = build("memory.cu", "sum_bf16x8", {"float*", "const __nv_bfloat16*", "int"});
  const int groups = 300;
  alignas(16) static std::uint16_t in[8 * 300];
  for (int i = 0; i < 8 * groups; ++i) in[i] = float_to_bf16(static_cast<float>(i % 13) - 6.0f);
  std::vector<float> out(2 * groups, 0.0f);
  float* o = out.data();
  const void* x = in;
  int count = groups;
  auto a = args(o, x, count);
  m.launch(dims({3, 1, 1}, {128, 1, 1}), a.data());
  for (int g = 0; g < groups; ++g) {
    float expect = 0;
    for (int k = 0; k < 8; ++k) expect += bf16_to_float(in[8 * g + k]);
    CHECK(out[static_cast<std::size_t>(2 * g)] == expect);
    CHECK(out[static_cast<std::size_t>(2 * g + 1)] == expect);
  }
}

TEST_CASE("emu: atomics from many blocks running in parallel") {
  const EmuModule m = build("atomics.cu", "hammer",
                            {"int*", "unsigned*", "float*", "double*", "unsigned long long*", "const int*", "int"});
  const int n = 200000;
  std::vector<int> values(n);
  for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = (i * 7919) % 100003;
  std::vector<int> ints = {0, -1, 1 << 30, 0, 0, -1, 0};
  std::vector<unsigned> bits = {0u, 0xffffffffu, 0u};
  float fsum = 0;
  double dsum = 0;
  unsigned long long usum = 0;
  int* pi = ints.data();
  unsigned* pb = bits.data();
  float* pf = &fsum;
  double* pd = &dsum;
  unsigned long long* pu = &usum;
  const int* pv = values.data();
  int count = n;
  auto a = args(pi, pb, pf, pd, pu, pv, count);
  m.launch(dims({96, 1, 1}, {256, 1, 1}), a.data());

  unsigned long long expect_sum = 0;
  unsigned expect_or = 0, expect_and = 0xffffffffu, expect_xor = 0;
  for (int v : values) {
    expect_sum += static_cast<unsigned long long>(v);
    expect_or |= 1u << (v % 32);
    expect_and &= ~(1u << (v % 31));
    expect_xor ^= static_cast<unsigned>(v);
  }
  CHECK(ints[0] == n);
  CHECK(ints[1] == *std::max_element(values.begin(), values.end()));
  CHECK(ints[2] == *std::min_element(values.begin(), values.end()));
  CHECK(ints[3] == -n);
  CHECK(ints[4] == n);
  CHECK(std::find(values.begin(), values.end(), ints[5]) != values.end());
  CHECK(ints[6] == n % 10);  // atomicInc wraps to 0 past 9
  CHECK(bits[0] == expect_or);
  CHECK(bits[1] == expect_and);
  CHECK(bits[2] == expect_xor);
  CHECK(fsum == static_cast<float>(n));  // below 2^24: every partial sum is exact
  CHECK(dsum == 0.5 * n);
  CHECK(usum == expect_sum);
}

TEST_CASE("emu: unsigned max, min, exchange and CAS, float exchange, atomicAdd on half, bf16 and their pairs") {
  const EmuModule m = build("atomics.cu", "hammer_more",
                            {"unsigned*", "float*", "__half2*", "__nv_bfloat162*", "__half*", "__nv_bfloat16*",
                             "const unsigned*", "int"});
  const int n = 1000;
  std::vector<unsigned> values(n);
  for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = 3000000000u + static_cast<unsigned>(i * 7919 % 1009);
  std::vector<unsigned> u = {0u, 0xffffffffu, 0u, 0u};
  float fexch = -1.0f;
  std::uint16_t h2[2] = {0, 0}, b2[2] = {0, 0}, h = 0, b = 0;
  unsigned* pu = u.data();
  float* pf = &fexch;
  void *ph2 = h2, *pb2 = b2, *ph = &h, *pb = &b;
  const unsigned* pv = values.data();
  int count = n;
  auto a = args(pu, pf, ph2, pb2, ph, pb, pv, count);
  m.launch(dims({8, 1, 1}, {64, 1, 1}), a.data());
  CHECK(u[0] == *std::max_element(values.begin(), values.end()));  // above 2^31: compared unsigned
  CHECK(u[1] == *std::min_element(values.begin(), values.end()));
  CHECK(std::find(values.begin(), values.end(), u[2]) != values.end());
  CHECK(u[3] == static_cast<unsigned>(n));
  CHECK(std::any_of(values.begin(), values.end(), [&](unsigned v) { return static_cast<float>(v) == fexch; }));
  // Sums of 1000 equal steps, each rounded in the 16-bit type: exact in half up to 2048; bf16
  // stops at 256 (256 + 1 rounds back to 256) and 512 (for steps of 2).
  CHECK(f16_to_float(h2[0]) == 1000.0f);
  CHECK(f16_to_float(h2[1]) == 500.0f);
  CHECK(bf16_to_float(b2[0]) == 256.0f);
  CHECK(bf16_to_float(b2[1]) == 512.0f);
  CHECK(f16_to_float(h) == 250.0f);
  CHECK(bf16_to_float(b) == 256.0f);
}
