// Untrusted source is compiled in a sandboxed hone-worker process, never in hone's own: the build
// that comes back is the one hone would have made, and what goes wrong there stays there.
#include <doctest/doctest.h>

#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/paths.hpp"
#include "validator/build_wire.hpp"
#include "validator/isolated_build.hpp"
#include "validator/sandbox.hpp"
#include "validator/static_stage.hpp"

extern char** environ;

using namespace hone;

namespace {

struct Fixture {
  OpSpec op = load_op(templates_root(), "rmsnorm");

  KernelBuildRequest request(const std::string& source, const std::string& entry) const {
    Candidate c;
    c.op = "rmsnorm";
    c.origin = "llm";
    c.entry = entry;
    c.source = source;
    return static_build_request(op, c, "sm_90", "emu");
  }
};

// Runs `body` in a forked child and returns its wait status.
template <class F>
int in_child(F&& body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST_CASE_FIXTURE(Fixture, "isolated build: the compile process builds what hone would build itself") {
  const Candidate ref = reference_candidate(op);
  const KernelBuildRequest req = static_build_request(op, ref, "sm_90", "emu");
  const std::size_t before = isolated_builds_started();
  const KernelBuild isolated = build_isolated(req);
  CHECK(isolated_builds_started() == before + 1);
  REQUIRE_MESSAGE(isolated.ok(), isolated.error());
  const KernelBuild here = build_kernel(req);
  REQUIRE(here.ok());
  CHECK(isolated.nvrtc.ptx == here.nvrtc.ptx);
  CHECK(isolated.image.cubin == here.image.cubin);
  CHECK_FALSE(isolated.image.cubin.empty());
  CHECK(isolated.nvrtc.usage.at(ref.entry).registers == here.nvrtc.usage.at(ref.entry).registers);
  CHECK(isolated.image.emu_object == here.image.emu_object);
  CHECK(std::filesystem::exists(isolated.image.emu_object));
  CHECK(isolated.image.emu_invoke == here.image.emu_invoke);
}

TEST_CASE_FIXTURE(Fixture, "isolated build: a compile error comes back with the compiler's message") {
  const KernelBuild b = build_isolated(request("extern \"C\" __global__ void k(int) { undefined_thing(); }", "k"));
  CHECK_FALSE(b.ok());
  CHECK(b.error().find("undefined_thing") != std::string::npos);
}

TEST_CASE_FIXTURE(Fixture, "isolated build: a compile that outlasts its time, or cannot start, fails the build and not hone") {
  // A compile process that hangs (a compiler stuck on crafted source), and a child of it.
  const auto dir = std::filesystem::temp_directory_path() / ("hone-hung-compile-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto hung = dir / "hung-compiler";
  std::ofstream(hung) << "#!/bin/sh\nsleep 60 &\nsleep 60\n";
  std::filesystem::permissions(hung, std::filesystem::perms::owner_all);
  IsolatedBuildOptions slow;
  slow.timeout_s = 0.5;
  slow.executable = hung;
  const auto start = std::chrono::steady_clock::now();
  const KernelBuild late = build_isolated(request("extern \"C\" __global__ void k(int) {}", "k"), {}, slow);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_FALSE(late.ok());
  CHECK(late.error() == "nvrtc: the sandboxed compile did not finish within 0.5 s and was killed");
  std::filesystem::remove_all(dir);

  IsolatedBuildOptions missing;
  missing.executable = "/nonexistent/hone-worker";
  const KernelBuild none = build_isolated(request("extern \"C\" __global__ void k(int) {}", "k"), {}, missing);
  CHECK_FALSE(none.ok());
  CHECK(none.error().find("cannot start /nonexistent/hone-worker") != std::string::npos);
}

TEST_CASE("isolated build: the wire keeps bytes that are not text") {
  KernelBuild b;
  b.image.entry = std::string(1, 'k');
  b.nvrtc.ok = true;
  b.nvrtc.cubin = std::string("\x7f" "ELF\0\0\xff\xfe", 8);
  b.nvrtc.log = std::string("caf\xe9 is not UTF-8");
  b.nvrtc.usage["k"] = {32, 0, 0, 1024, 16, 1, 364};
  b.for_emu = true;
  b.emu.ok = true;
  b.emu.shared_object = "/cache/emu/abc.so";
  const KernelBuild back = decode_kernel_build(encode_kernel_build(b));
  CHECK(back.nvrtc.cubin == b.nvrtc.cubin);
  CHECK(back.image.cubin == b.nvrtc.cubin);
  CHECK(back.nvrtc.log == b.nvrtc.log);
  CHECK(back.nvrtc.usage.at("k").shared_bytes == 1024);
  CHECK(back.nvrtc.usage.at("k").const_bytes == 364);
  CHECK(back.emu.shared_object == "/cache/emu/abc.so");
  CHECK_THROWS_WITH(decode_kernel_build("not cbor"), doctest::Contains("not a kernel build"));
}

TEST_CASE("isolated build: the compile sandbox lets compilers run programs and write files, and forbids the network") {
  const auto dir = std::filesystem::temp_directory_path() / ("hone-compile-sandbox-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const int ran = in_child([&] {
    enter_compile_sandbox(compile_sandbox_limits(30));
    std::ofstream(dir / "out.o") << "object";
    char* argv[] = {const_cast<char*>("true"), nullptr};
    pid_t pid;
    if (posix_spawnp(&pid, "true", nullptr, nullptr, argv, environ) != 0) return 3;
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::filesystem::exists(dir / "out.o") ? 0 : 4;
  });
  CHECK(WIFEXITED(ran));
  CHECK(WEXITSTATUS(ran) == 0);
  const int networked = in_child([] {
    enter_compile_sandbox(compile_sandbox_limits(30));
    ::socket(AF_INET, SOCK_STREAM, 0);
    return 0;
  });
  CHECK(WIFSIGNALED(networked));
  CHECK(WTERMSIG(networked) == SIGSYS);
  std::filesystem::remove_all(dir);
}
