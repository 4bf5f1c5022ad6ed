#include "validator/isolated_build.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "validator/build_wire.hpp"
#include "validator/piped_child.hpp"
#include "validator/sandbox.hpp"
#include "validator/worker.hpp"

namespace hone {

namespace {

std::atomic<std::size_t> started{0};

// A reply larger than this is not a build (a CUBIN of a kernel is KiBs to a few MiB).
constexpr std::size_t kMaxReplyBytes = 512u * 1024 * 1024;

KernelBuild failed_build(const KernelBuildRequest& request, const std::string& why) {
  KernelBuild b;
  b.image.entry = request.entry;
  b.nvrtc.log = "the sandboxed compile " + why;
  return b;
}

bool read_all(int fd, std::string& out, std::size_t limit) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) return false;
  }
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string s = "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    if (sig == SIGSYS) s += ": the compiler made a system call the compile sandbox forbids";
    if (sig == SIGXCPU) s += ": it used up its CPU time";
    return s;
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

std::size_t isolated_builds_started() { return started.load(); }

KernelBuild build_isolated(const KernelBuildRequest& request, const std::optional<NvrtcResult>& known,
                           const IsolatedBuildOptions& options) {
  const std::filesystem::path exe = options.executable.empty() ? find_worker_executable() : options.executable;
  PipedChild child;
  try {
    // Its own process group, so that a timeout kills the compilers it started with it.
    child = spawn_piped_child({exe.string(), "--compile", "--timeout", std::to_string(options.timeout_s), "--parent",
                               std::to_string(::getpid())});
  } catch (const std::runtime_error& e) {
    return failed_build(request, e.what());
  }
  const pid_t pid = child.pid;
  ++started;

  const bool sent = write_all(child.to_child, encode_build_request({request, known}));
  ::close(child.to_child);
  std::string reply;
  bool timed_out = false, too_long = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{child.from_child, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(child.from_child, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
    if (reply.size() > kMaxReplyBytes) {
      too_long = true;
      break;
    }
  }
  ::close(child.from_child);
  if (timed_out || too_long) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return failed_build(request, fmt::format("did not finish within {:g} s and was killed", options.timeout_s));
  if (too_long) return failed_build(request, "sent more than " + std::to_string(kMaxReplyBytes) + " bytes and was killed");
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    return failed_build(request, describe(status) + (sent ? "" : " before it read the request"));
  try {
    return decode_kernel_build(reply);
  } catch (const std::exception& e) {
    return failed_build(request, std::string("sent a reply hone cannot read: ") + e.what());
  }
}

int serve_isolated_build(int in_fd, int out_fd, double timeout_s) {
  std::string bytes;
  if (!read_all(in_fd, bytes, 64u * 1024 * 1024)) return 2;
  WireBuildRequest w;
  try {
    w = decode_build_request(bytes);
  } catch (const std::exception& e) {
    ::dprintf(2, "hone-worker --compile: %s\n", e.what());
    return 2;
  }
  try {
    enter_compile_sandbox(compile_sandbox_limits(timeout_s));
  } catch (const std::exception& e) {
    ::dprintf(2, "hone-worker --compile: %s\n", e.what());
    return 3;
  }
  KernelBuild build;
  try {
    build = build_kernel(w.request, w.known_nvrtc);
  } catch (const std::exception& e) {
    // An architecture NVRTC cannot target: the build says so, as an in-process one would.
    build.image.entry = w.request.entry;
    build.nvrtc.log = e.what();
  }
  return write_all(out_fd, encode_kernel_build(build)) ? 0 : 1;
}

}  // namespace hone
