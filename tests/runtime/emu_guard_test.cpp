// Out-of-bounds accesses on the emu device: guard pages around every buffer, canary zones where
// alignment leaves a gap, fiber stack overflow, dynamic shared memory overrun. Each is caught
// with a reason that names the buffer, the offset and the thread.
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#include "emu_child_process.hpp"
#include "emu_test_support.hpp"
#include "runtime/emu_device.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

struct Launch {
  std::unique_ptr<Device> device = make_emu_device("sm_90");
  KernelImage image;
  std::unique_ptr<LoadedKernel> kernel;
  Launch(const std::string& file, const std::string& entry, const std::vector<std::string>& types)
      : image(build_image(file, entry, types)), kernel(device->load(image)) {}
};

}  // namespace

TEST_CASE("emu device: a write past the end of a buffer hits its guard page, and the reason names buffer, offset and thread") {
  Launch l("guards.cu", "write_at", {"float*", "int", "int", "long long"});
  void* out = l.device->alloc(1024 * sizeof(float));  // 4096 bytes: the buffer ends at the guard
  l.device->name_buffer(out, "out");
  int n = 1024, who = 70;
  long long at = 1024 + 10;
  auto a = args(out, n, who, at);
  const ChildEnd end = run_in_child([&] { l.device->launch(*l.kernel, dims({16, 1, 1}, {64, 1, 1}), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK(end.exit_code == kFatalFaultExit);
  CHECK(has(end.fault, "out-of-bounds write to buffer 'out' (4096 bytes) at byte offset 4136, 40 bytes past its end"));
  CHECK(has(end.fault, "in block (1,0,0) thread (6,0,0)"));

  // In bounds: the same launch runs here, in this process. Thread `who` writes an element no other
  // thread writes (the threads from n on write nothing): at 5 it raced thread 5, whose block may
  // run after its own on another emu thread.
  n = 1000;
  at = 1010;
  l.device->launch(*l.kernel, dims({16, 1, 1}, {64, 1, 1}), a.data());
  std::vector<float> got(1024);
  l.device->download(got.data(), out, 4096);
  CHECK(got[1010] == 1.0f);
  CHECK(got[999] == 2.0f);
  l.device->release(out);
}

TEST_CASE("emu device: a read before the start of a buffer hits the guard below it") {
  Launch l("guards.cu", "read_shifted", {"float*", "const float*", "int", "int", "long long"});
  void* out = l.device->alloc(4096);
  void* in = l.device->alloc(4096);
  l.device->name_buffer(out, "out");
  l.device->name_buffer(in, "x");
  int n = 1024, who = 3;
  long long shift = -2051;  // thread 3 reads in[-2048]: 8192 bytes before the start
  auto a = args(out, in, n, who, shift);
  const ChildEnd end = run_in_child([&] { l.device->launch(*l.kernel, dims({8, 1, 1}, {128, 1, 1}), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK(has(end.fault, "out-of-bounds read of buffer 'x' (4096 bytes) 8192 bytes before its start"));
  CHECK(has(end.fault, "in block (0,0,0) thread (3,0,0)"));
  l.device->release(out);
  l.device->release(in);
}

TEST_CASE("emu device: a read far outside every buffer is the kernel's out-of-bounds read, not a crash of the process") {
  // A moe kernel reading the weights of an expert id past E landed, now and then, beyond the guard
  // zones in memory nothing had mapped: the worker died of the SIGSEGV, and the verdict said only
  // that (the stage of the worker, no access, no thread), where the GPU reports an illegal address.
  Launch l("guards.cu", "read_shifted", {"float*", "const float*", "int", "int", "long long"});
  void* out = l.device->alloc(4096);
  void* in = l.device->alloc(4096);
  l.device->name_buffer(out, "out");
  l.device->name_buffer(in, "x");
  // An address nothing maps: the middle of a region mapped and given back.
  const std::size_t span = std::size_t{1} << 32;  // its middle far from what the child maps next, at its top
  void* hole = mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(hole != MAP_FAILED);
  REQUIRE(munmap(hole, span) == 0);
  const auto target = reinterpret_cast<std::intptr_t>(hole) + static_cast<std::intptr_t>(span / 2);
  int n = 1024, who = 5;
  long long shift = (target - reinterpret_cast<std::intptr_t>(in)) / static_cast<long long>(sizeof(float)) - who;
  auto a = args(out, in, n, who, shift);
  const ChildEnd end = run_in_child([&] { l.device->launch(*l.kernel, dims({8, 1, 1}, {128, 1, 1}), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK(end.exit_code == kFatalFaultExit);
  CHECK(has(end.fault, "out-of-bounds read of address 0x"));
  CHECK(has(end.fault, "outside every buffer and guard zone"));
  CHECK(has(end.fault, "in block (0,0,0) thread (5,0,0)"));
  l.device->release(out);
  l.device->release(in);
}

TEST_CASE("emu device: writes into the alignment gap after a buffer or the slack before it are found after the launch") {
  Launch l("guards.cu", "write_at", {"float*", "int", "int", "long long"});
  void* out = l.device->alloc(100 * sizeof(float));  // 400 bytes: 112 bytes of gap to 512
  l.device->name_buffer(out, "out");
  int n = 100, who = 7;
  long long at = 103;  // byte 412, inside the gap: no fault, but the canary changes
  auto a = args(out, n, who, at);
  std::string why;
  try {
    l.device->launch(*l.kernel, dims({1, 1, 1}, {128, 1, 1}), a.data());
  } catch (const EmuKernelError& e) {
    why = e.what();
  }
  CHECK_MESSAGE(has(why, "out-of-bounds write to buffer 'out' (400 bytes) at byte offset 412, 12 bytes past its end"), why);

  at = -1;  // the slack before the buffer
  why.clear();
  try {
    l.device->launch(*l.kernel, dims({1, 1, 1}, {128, 1, 1}), a.data());
  } catch (const EmuKernelError& e) {
    why = e.what();
  }
  CHECK_MESSAGE(has(why, "out-of-bounds write to buffer 'out' (400 bytes) 4 bytes before its start"), why);

  at = 7;  // in bounds; the zones were restored, so nothing is blamed on this launch
  CHECK_NOTHROW(l.device->launch(*l.kernel, dims({1, 1, 1}, {128, 1, 1}), a.data()));
  l.device->release(out);
}

TEST_CASE("emu device: what a kernel reads in the gap after a buffer is NaN") {
  Launch l("guards.cu", "read_shifted", {"float*", "const float*", "int", "int", "long long"});
  void* out = l.device->alloc(100 * sizeof(float));
  void* in = l.device->alloc(100 * sizeof(float));
  std::vector<float> x(100, 3.0f);
  l.device->upload(in, x.data(), 400);
  int n = 100, who = 99;
  long long shift = 1;  // in[100]: the first float past the end
  auto a = args(out, in, n, who, shift);
  l.device->launch(*l.kernel, dims({1, 1, 1}, {128, 1, 1}), a.data());
  std::vector<float> got(100);
  l.device->download(got.data(), out, 400);
  CHECK(got[98] == 3.0f);
  CHECK(std::isnan(got[99]));
  l.device->release(out);
  l.device->release(in);
}

TEST_CASE("emu device: a fiber that overflows its stack is named") {
  Launch l("guards.cu", "recurse", {"float*", "int"});
  void* out = l.device->alloc(64 * sizeof(float));
  int depth = 100000;
  auto a = args(out, depth);
  const ChildEnd end = run_in_child([&] { l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK(end.exit_code == kFatalFaultExit);
  CHECK(has(end.fault, "fiber stack overflow in block (0,0,0) thread ("));
  CHECK(has(end.fault, "KiB of stack per thread"));

  depth = 3;
  l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), a.data());
  float first = 0;
  l.device->download(&first, out, sizeof first);
  CHECK(first > 0.0f);
  l.device->release(out);
}

TEST_CASE("emu: running past the dynamic shared memory is named with its size") {
  const EmuModule m = build("memory.cu", "fill_shared", {"float*", "int"});
  std::vector<float> out(4, 0.0f);
  float* o = out.data();
  int count = 65;  // one float past the 256 bytes launched with
  auto a = args(o, count);
  const ChildEnd end = run_in_child([&] { m.launch(dims({4, 1, 1}, {32, 1, 1}, 256), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK(has(end.fault, "out-of-bounds write to dynamic shared memory at byte offset 256 (the launch gave 256 bytes)"));
  CHECK(has(end.fault, "thread (0,0,0)"));
}

TEST_CASE("emu device: without a fatal reporter the reason goes to stderr and the process dies of the SIGSEGV") {
  Launch l("guards.cu", "write_at", {"float*", "int", "int", "long long"});
  void* out = l.device->alloc(4096);
  l.device->name_buffer(out, "out");
  int n = 1024, who = 0;
  long long at = 5000;
  auto a = args(out, n, who, at);
  const ChildEnd end =
      run_in_child([&] { l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), a.data()); }, /*fatal_reports=*/false);
  CHECK(end.fault.empty());
  CHECK(end.signal == SIGSEGV);
  CHECK_MESSAGE(has(end.stderr_text, "out-of-bounds write to buffer 'out'"), end.stderr_text);
  l.device->release(out);
}

TEST_CASE("emu device: a released buffer's mapping serves the next buffer of its size, and is out of reach until then") {
  Launch l("guards.cu", "write_at", {"float*", "int", "int", "long long"});
  void* first = l.device->alloc(1000 * sizeof(float));  // 4000 bytes: a gap of 96 to 4096
  l.device->release(first);
  // A pointer kept past its release (state kept between launches) faults, as on a fresh mapping.
  int n = 1000, who = 5;
  long long at = 5;
  void* stale = first;
  auto a = args(stale, n, who, at);
  const ChildEnd end = run_in_child([&] { l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), a.data()); });
  INFO(end.fault << end.stderr_text);
  CHECK_FALSE((end.exited && end.exit_code == 0));

  // The next buffer of that size reuses the mapping, with its guards and canaries as new.
  void* again = l.device->alloc(1000 * sizeof(float));
  CHECK(again == first);
  l.device->name_buffer(again, "again");
  auto b = args(again, n, who, at);
  CHECK_NOTHROW(l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), b.data()));
  at = 1001;  // in the gap
  std::string why;
  try {
    l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), b.data());
  } catch (const EmuKernelError& e) {
    why = e.what();
  }
  CHECK_MESSAGE(has(why, "out-of-bounds write to buffer 'again' (4000 bytes) at byte offset 4004"), why);
  at = 1024 + 10;  // past the page: the guard
  const ChildEnd past = run_in_child([&] { l.device->launch(*l.kernel, dims({1, 1, 1}, {32, 1, 1}), b.data()); });
  INFO(past.fault << past.stderr_text);
  CHECK(has(past.fault, "out-of-bounds write to buffer 'again' (4000 bytes)"));
  l.device->release(again);
}
