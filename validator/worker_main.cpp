// hone-worker: evaluates candidates on one device, one request at a time, in its own process.
// Requests arrive as JSON lines on fd 3; stage notices and the verdict leave as JSON lines on fd 4.
//
// On the cuda device requests are evaluated in the worker itself (validator/in_process_evaluations.hpp).
// Otherwise every request is evaluated in a child process forked for it; on the emu device the child runs
// in the sandbox (validator/sandbox.hpp). The worker itself never loads a kernel: it reads the
// request, forks, passes the child's protocol lines on to fd 4 and its stdout and stderr on to
// its own stderr, and waits. A child that ends in any other way than with a verdict ends the
// worker the same way (the same exit status or signal), after its fault report, if it made one,
// has been passed on: the client then sees what it would have seen had the kernel run in the
// worker itself, gives the reason in the verdict, and starts a new worker.
//
// `hone-worker --compile` builds one untrusted kernel instead (validator/isolated_build.hpp): the
// request on fd 3, the build on fd 4, under the compile sandbox, then it exits.
//
// Either dies with the hone that started it (`--parent PID`), however hone ends, SIGKILL
// included: the kernel or compiler it runs would otherwise spin on, orphaned. The evaluation's
// child dies with the worker, the compilers with the compile worker (their process group).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/device_select.hpp"
#include "runtime/emu_device.hpp"
#include "runtime/fatal_fault.hpp"
#include "validator/evaluation.hpp"
#include "validator/in_process_evaluations.hpp"
#include "validator/isolated_build.hpp"
#include "validator/piped_child.hpp"
#include "validator/sandbox.hpp"
#include "validator/worker.hpp"

namespace {

constexpr int kRequestFd = 3;
constexpr int kReplyFd = 4;

struct Options {
  std::string kind = "emu";
  std::string arch = "sm_90";
  double timeout_s = 0;  // the client's limit per evaluation; the child's CPU limit follows from it
  pid_t parent = 0;      // the hone that started this worker: 0 when not said
};

// The kernel dies with its worker; the worker, and the compilers it runs, with hone. The death
// signal comes when the parent ends; checking the parent after asking for it closes the race
// with a parent that ended first.
void die_with(pid_t parent, int signal) {
  ::prctl(PR_SET_PDEATHSIG, signal);
  if (parent > 0 && ::getppid() != parent) ::_exit(1);
}

// The compile worker's compilers are in its process group (hone started it as a group's leader):
// its death signal takes the whole group.
void end_process_group(int) { ::kill(0, SIGKILL); }

void send(const nlohmann::json& j) { hone::write_all(kReplyFd, j.dump() + "\n"); }

std::unique_ptr<hone::Device> open_worker_device(const Options& o) {
  if (o.kind != "emu") return hone::open_device(o.kind, o.arch);
  hone::EmuDeviceOptions emu;
  emu.before_launch = [] { hone::forbid_file_opens(); };  // kernels are loaded by now
  return hone::make_emu_device(o.arch, std::move(emu));
}

// The child: one evaluation, its messages on fd 4 (a pipe to the worker), then exit.
[[noreturn]] void evaluate_in_child(const Options& o, const std::string& line) {
  std::string stage = "request";
  try {
    auto request = nlohmann::json::parse(line).at("request").get<hone::EvaluationRequest>();
    std::unique_ptr<hone::Device> device = open_worker_device(o);
    if (o.kind == "emu") {
      // Block threads first: they inherit nothing, so the filter is synchronised onto them.
      const unsigned threads = hone::start_emu_threads();
      const hone::OpSpec op = hone::load_op_spec(request.spec_dir);  // files are opened before the sandbox closes them
      const double cpu_s = hone::silence_limit_s(o.timeout_s, request.launch_limit_s) * hone::kMaxLaunchesPerEvaluation;
      hone::enter_sandbox(hone::default_sandbox_limits(threads, cpu_s, hone::request_buffer_bytes(op, request)));
      hone::report_emu_faults_fatally();
    }
    hone::Verdict v = hone::evaluate(
        *device, request,
        [&](const std::string& s) {
          stage = s;
          send({{"type", "stage"}, {"stage", s}});
        },
        [] { send({{"type", "launch"}}); });
    send({{"type", "verdict"}, {"verdict", v}});
  } catch (const std::exception& e) {
    send({{"type", "error"}, {"stage", stage}, {"message", e.what()}});
  }
  ::_exit(0);
}

// What the worker learned from passing on the child's protocol lines.
struct Relayed {
  bool answered = false;  // a verdict or an error came
  bool faulted = false;   // a fault report came
};

// Passes the child's lines on to fd 4 and its output on to stderr, until both pipes close.
Relayed relay(int protocol, int output) {
  Relayed r;
  std::string pending;
  pollfd fds[2] = {{protocol, POLLIN, 0}, {output, POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (pollfd& p : fds) {
      if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = ::read(p.fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        p.fd = -1;
        --open;
        continue;
      }
      if (&p == &fds[1]) {
        hone::write_all(2, std::string(buf, static_cast<std::size_t>(n)));
        continue;
      }
      pending.append(buf, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
        const std::string line = pending.substr(0, nl + 1);
        pending.erase(0, nl + 1);
        const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        const std::string type = j.is_object() ? j.value("type", "") : "";
        r.answered |= type == "verdict" || type == "error";
        r.faulted |= type == "fault";
        hone::write_all(kReplyFd, line);
      }
    }
  }
  return r;
}

// Ends the worker as the child ended: the client reports it and replaces the worker.
[[noreturn]] void end_like(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    ::signal(sig, SIG_DFL);
    ::kill(::getpid(), sig);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

void evaluate_request(const Options& o, const std::string& line) {
  int protocol[2], output[2];
  if (::pipe2(protocol, O_CLOEXEC) != 0 || ::pipe2(output, O_CLOEXEC) != 0) {
    send({{"type", "error"}, {"stage", "request"}, {"message", std::string("pipe: ") + std::strerror(errno)}});
    return;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    send({{"type", "error"}, {"stage", "request"}, {"message", std::string("fork: ") + std::strerror(errno)}});
    return;
  }
  if (pid == 0) {
    // Whatever the kernel does, it does not outlive the worker (which the client may kill).
    die_with(parent, SIGKILL);
    const int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, 0);
    ::dup2(protocol[1], kReplyFd);
    ::dup2(output[1], 1);
    ::dup2(output[1], 2);
    ::close(kRequestFd);
    evaluate_in_child(o, line);
  }
  ::close(protocol[1]);
  ::close(output[1]);
  const Relayed r = relay(protocol[0], output[0]);
  ::close(protocol[0]);
  ::close(output[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.answered) return;
  if (WIFEXITED(status) && !r.faulted) {
    // It left on its own (the kernel called exit?) without a verdict: say so, then end likewise.
    send({{"type", "fault"},
          {"reason", "the process running the kernel exited with status " + std::to_string(WEXITSTATUS(status)) +
                         " before it gave a verdict (did the kernel call exit?)"}});
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS && !r.faulted) {
    // The filter trapped a call made with signals blocked, so the sandbox's handler never ran.
    send({{"type", "fault"},
          {"reason", "forbidden system call, made with signals blocked (as system() and posix_spawn do to start a "
                     "process), ended the process running the kernel"}});
  }
  end_like(status);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool compile = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--compile") == 0) compile = true;
    else if (i + 1 >= argc) break;
    else if (std::strcmp(argv[i], "--device") == 0) o.kind = argv[++i];
    else if (std::strcmp(argv[i], "--arch") == 0) o.arch = argv[++i];
    else if (std::strcmp(argv[i], "--timeout") == 0) o.timeout_s = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--parent") == 0) o.parent = static_cast<pid_t>(std::atol(argv[++i]));
  }
  if (compile) {
    if (::fcntl(kRequestFd, F_GETFD) < 0 || ::fcntl(kReplyFd, F_GETFD) < 0) {
      std::cerr << "hone-worker --compile: runs under hone, which passes the request on fd 3 and reads the build on fd 4\n";
      return 2;
    }
    // Whatever the compilers do, they do not outlive hone.
    ::signal(SIGTERM, end_process_group);
    die_with(o.parent, SIGTERM);
    return hone::serve_isolated_build(kRequestFd, kReplyFd, o.timeout_s);
  }
  FILE* in = fdopen(kRequestFd, "r");
  if (!in || ::fcntl(kReplyFd, F_GETFD) < 0) {
    std::cerr << "hone-worker: runs under hone, which passes requests on fd 3 and reads replies on fd 4\n";
    return 2;
  }
  die_with(o.parent, SIGKILL);
  // A child's crash is passed on as the worker's own; it need not leave a core file behind.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  hone::set_fatal_fault_fd(kReplyFd);
  std::unique_ptr<hone::Device> device;
  try {
    device = open_worker_device(o);  // refuses a device this machine cannot open, before any request
  } catch (const std::exception& e) {
    std::cerr << "hone-worker: " << e.what() << "\n";
    return 2;
  }
  if (o.kind == "cuda") {
    const int status = hone::serve_evaluations_in_process(*device, in, kReplyFd);
    // A faulted GPU context: end now, without the destructors and the driver's exit handlers,
    // which would only call into the faulted context.
    if (status != 0) ::_exit(status);
    return status;
  }
  device.reset();

  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) evaluate_request(o, line);
  std::free(line);
  return 0;
}
