#include "validator/worker.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "validator/piped_child.hpp"

namespace hone {

namespace {

void send_to_worker(int fd, const std::string& data) {
  if (!write_all(fd, data)) throw std::runtime_error(std::string("write to worker failed: ") + std::strerror(errno));
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "stopped";
}

}  // namespace

std::filesystem::path find_worker_executable() {
  if (const char* w = std::getenv("HONE_WORKER"); w && *w) return w;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "hone-worker";
    if (std::filesystem::exists(beside)) return beside;
  }
  return HONE_WORKER_PATH;
}

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {
  if (options_.executable.empty()) options_.executable = find_worker_executable();
}

Worker::~Worker() { stop(false); }

namespace {

// The worker's large host buffers on transparent huge pages, where the system gives them on
// request: a gigabyte of expert weights drawn for a check then costs hundreds of page faults, not
// hundreds of thousands (glibc's tunable; the user's other tunables are kept).
std::string huge_page_tunables() {
  const char* given = std::getenv("GLIBC_TUNABLES");
  return std::string("GLIBC_TUNABLES=") + (given && *given ? std::string(given) + ":" : "") + "glibc.malloc.hugetlb=1";
}

}  // namespace

void Worker::start() {
  const std::string exe = options_.executable.string();
  // The time limit lets the worker give the process running a kernel a CPU-time limit too.
  // Kernels may printf: their output goes to our stderr, never into the protocol or our stdout.
  // --parent: the worker dies with this process, however it ends (validator/worker_main.cpp).
  const PipedChild child = spawn_piped_child({exe, "--device", options_.device_kind, "--arch", options_.arch, "--timeout",
                                              std::to_string(options_.timeout_s), "--parent", std::to_string(::getpid())},
                                             {huge_page_tunables()});
  pid_ = child.pid;
  to_worker_ = child.to_child;
  from_worker_ = child.from_child;
  pending_.clear();
  ++started_;
}

void Worker::stop(bool kill_it) {
  if (pid_ < 0) return;
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (kill_it) ::kill(pid_, SIGKILL);
  // A worker asked to end gets a few seconds (a driver tearing down a faulted context could
  // block), then is killed: stopping never hangs the job.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (r == 0 && std::chrono::steady_clock::now() > give_up) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  pid_ = -1;
}

Verdict Worker::lost_worker(const std::string& what, const std::string& stage) {
  return Verdict::failed("worker", "the worker " + what + " during the " + stage + " stage; it was replaced");
}

Verdict Worker::evaluate(const EvaluationRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  if (pid_ < 0) start();
  std::string stage = "start";
  nlohmann::json msg = {{"type", "evaluate"}, {"request", request}};
  try {
    send_to_worker(to_worker_, msg.dump() + "\n");
  } catch (const std::exception&) {
    // The worker died between evaluations; start a fresh one and try once more.
    stop(true);
    start();
    send_to_worker(to_worker_, msg.dump() + "\n");
  }

  std::string fault;  // what the worker said about the fault that is ending it
  // Every line the worker sends (a stage, a launch) starts the silence limit anew.
  const double silence_s = silence_limit_s(options_.timeout_s, request.launch_limit_s);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(silence_s);
  for (;;) {
    std::size_t nl;
    while ((nl = pending_.find('\n')) != std::string::npos) {
      deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(silence_s);
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      nlohmann::json reply;
      try {
        reply = nlohmann::json::parse(line);
      } catch (const std::exception&) {
        stop(true);
        return lost_worker("sent a malformed reply", stage);
      }
      const std::string type = reply.value("type", "");
      if (type == "stage") stage = reply.value("stage", stage);
      else if (type == "fault") fault = reply.value("reason", "");
      else if (type == "verdict" || type == "error") {
        Verdict v = type == "verdict" ? reply.at("verdict").get<Verdict>()
                                      : Verdict::failed(reply.value("stage", stage), reply.value("message", "worker error"));
        // A worker whose device a fault made unusable says so and ends: wait for it, so that the
        // next evaluation starts a new one instead of writing to one on its way out.
        if (reply.value("exiting", false)) stop(false);
        // What the checks and the timing cost on this device, for the job's progress lines.
        if (v.detail.is_null()) v.detail = nlohmann::json::object();
        v.detail["evaluation_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        return v;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop(true);
      return lost_worker("did not answer within " + std::to_string(static_cast<int>(silence_s)) +
                             " s of its last launch or stage (a hang?) and was killed",
                         stage);
    }
    pollfd p{from_worker_, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;
    char buf[65536];
    ssize_t n = ::read(from_worker_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(to_worker_);
      ::close(from_worker_);
      to_worker_ = from_worker_ = -1;
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
      if (!fault.empty()) {
        Verdict v = Verdict::failed(stage, fault);
        v.detail["worker"] = describe_exit(status);
        return v;
      }
      return lost_worker(describe_exit(status), stage);
    }
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace hone
