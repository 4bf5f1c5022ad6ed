#include "validator/sandbox.hpp"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "runtime/emu/rt/fault_handler.hpp"
#include "runtime/emu_device.hpp"
#include "runtime/fatal_fault.hpp"

namespace hone {

namespace {

using emu::SignalText;

enum Phase : int { kOutside, kLoading, kRunning };
std::atomic<int> phase{kOutside};
std::uint64_t cpu_limit_s = 0;

// The calls the filters trap, by number, so that the SIGSYS handler can name them without
// allocating. Filled before a filter is loaded; read only by the handler.
struct Trapped {
  int nr;
  const char* name;
  const char* why;  // what the call would have done, for the reason
};
constexpr int kMaxTrapped = 160;
Trapped trapped[kMaxTrapped];
std::atomic<int> trapped_count{0};
int open_calls[4] = {-1, -1, -1, -1};  // open, openat, openat2, creat

void remember(int nr, const char* name, const char* why) {
  const int n = trapped_count.load();
  for (int i = 0; i < n; ++i)
    if (trapped[i].nr == nr) {
      trapped[i].why = why;  // a later filter traps more of the call: say what it traps now
      return;
    }
  if (n < kMaxTrapped) {
    trapped[n] = {nr, name, why};
    trapped_count.store(n + 1);
  }
}

const Trapped* lookup(int nr) {
  const int n = trapped_count.load();
  for (int i = 0; i < n; ++i)
    if (trapped[i].nr == nr) return &trapped[i];
  return nullptr;
}

bool is_open_call(int nr) {
  for (int o : open_calls)
    if (o >= 0 && o == nr) return true;
  return false;
}

void on_sigsys(int, siginfo_t* info, void* context) {
  const int nr = info->si_syscall;
  SignalText who;
  const bool in_kernel = emu::describe_running_thread(who);
#if defined(__x86_64__)
  if (!in_kernel && phase.load() == kRunning && is_open_call(nr)) {
    static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RAX] = -EPERM;  // see sandbox.hpp
    return;
  }
#else
  (void)context;
#endif
  SignalText reason;
  reason.add("forbidden system call ");
  if (const Trapped* t = lookup(nr)) reason.add(t->name).add(" (").add(t->why).add(")");
  else reason.add("number ").add(static_cast<std::uint64_t>(nr));
  if (in_kernel) reason.add(" in ").add(who.c_str());
  else if (phase.load() == kLoading) reason.add(" while the kernel was being loaded (host code that runs at load time)");
  else reason.add(" outside the kernel's threads");
  report_fatal_fault(reason.c_str());
}

void on_limit(int sig, siginfo_t*, void*) {
  SignalText reason;
  if (sig == SIGXCPU) {
    reason.add("the kernel used up its CPU time limit of ").add(cpu_limit_s).add(" s (a hang?)");
  } else {
    reason.add("the kernel wrote to a file (the file size limit is 0)");
  }
  SignalText who;
  if (emu::describe_running_thread(who)) reason.add(" in ").add(who.c_str());
  report_fatal_fault(reason.c_str());
}

void handle(int sig, void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}

void set_limit(int resource, std::uint64_t soft, std::uint64_t hard, const char* name) {
  const rlimit r{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  if (setrlimit(resource, &r) != 0) throw std::runtime_error(std::string("sandbox: cannot set ") + name);
}

// A filter under construction: every rule traps, and every trapped call is remembered by name.
class Filter {
 public:
  Filter() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {
    if (!ctx_) throw std::runtime_error("sandbox: seccomp_init failed");
    // Every thread gets the filter, the emu device's block threads included.
    seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_TSYNC, 1);
  }
  ~Filter() { seccomp_release(ctx_); }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;

  void trap(const char* name, const char* why, std::initializer_list<scmp_arg_cmp> when = {}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;  // not a call of this architecture
    remember(nr, name, why);
    check(seccomp_rule_add_array(ctx_, SCMP_ACT_TRAP, nr, static_cast<unsigned>(when.size()), when.begin()), name);
  }
  void refuse(const char* name, int error, std::initializer_list<scmp_arg_cmp> when = {}) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;
    check(seccomp_rule_add_array(ctx_, SCMP_ACT_ERRNO(static_cast<std::uint16_t>(error)), nr,
                                 static_cast<unsigned>(when.size()), when.begin()),
          name);
  }
  void load() { check(seccomp_load(ctx_), "seccomp_load"); }

 private:
  static void check(int rc, const char* what) {
    if (rc < 0) throw std::runtime_error(std::string("sandbox: seccomp rule for ") + what + " failed: " + std::to_string(rc));
  }
  scmp_filter_ctx ctx_;
};

// Opening a file for anything but reading, by flag bit: one rule per bit, the rules of one call OR'ed.
void trap_writing_opens(Filter& f, const char* name, unsigned flags_arg) {
  for (const unsigned bit : {unsigned(O_WRONLY), unsigned(O_RDWR), unsigned(O_CREAT), unsigned(O_TRUNC),
                             unsigned(O_APPEND), unsigned(__O_TMPFILE)})
    f.trap(name, "opening a file for writing", {SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ, bit, bit)});
}

void resolve_open_calls() {
  const char* names[] = {"open", "openat", "openat2", "creat"};
  for (int i = 0; i < 4; ++i) {
    const int nr = seccomp_syscall_resolve_name(names[i]);
    open_calls[i] = nr == __NR_SCMP_ERROR ? -1 : nr;
  }
}

// What neither a kernel nor a compiler ever needs: the network, other processes' memory, and
// the system's configuration.
void trap_network(Filter& f) {
  for (const char* name : {"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4"})
    f.trap(name, "networking");
}

void trap_system_changes(Filter& f, bool with_limits) {
  for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev"}) f.trap(name, "touching other processes");
  if (with_limits) f.trap("setrlimit", "changing the system");
  for (const char* name : {"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
                           "capset", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "bpf",
                           "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module",
                           "finit_module", "delete_module", "reboot", "swapon", "swapoff", "sethostname", "setdomainname",
                           "acct", "add_key", "keyctl", "request_key"})
    f.trap(name, "changing the system");
}

std::uint64_t current_address_space() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

SandboxLimits default_sandbox_limits(unsigned threads, double timeout_s, std::uint64_t buffer_bytes) {
  SandboxLimits limits;
  constexpr std::uint64_t MiB = 1024 * 1024;
  if (const char* v = std::getenv("HONE_WORKER_MEMORY_MB"); v && *v) {
    limits.memory_bytes = std::strtoull(v, nullptr, 10) * MiB;
  } else {
    // Each block thread may map the fiber stacks of a whole cluster (2048 threads, emu's limit,
    // kMaxClusterThreads) and a malloc arena; the rest gets 2 GiB on top of what the process maps
    // already, and the kernels' buffers their copies (a pool of 64 DeltaNet states is 134 MB, an
    // MoE layer's expert weights 2 GB).
    const std::uint64_t per_thread = 2048 * (emu_fiber_stack_bytes() + 64 * 1024) + 128 * MiB;
    limits.memory_bytes = current_address_space() + threads * per_thread + 2048 * MiB + 8 * buffer_bytes;
  }
  if (timeout_s > 0) limits.cpu_seconds = static_cast<std::uint64_t>(std::ceil(timeout_s * threads)) + 10;
  return limits;
}

void enter_sandbox(const SandboxLimits& limits) {
  if (limits.memory_bytes) set_limit(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes, "RLIMIT_AS");
  if (limits.cpu_seconds) {
    cpu_limit_s = limits.cpu_seconds;
    set_limit(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5, "RLIMIT_CPU");
  }
  set_limit(RLIMIT_FSIZE, 0, 0, "RLIMIT_FSIZE");
  set_limit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
  handle(SIGSYS, &on_sigsys);
  handle(SIGXCPU, &on_limit);
  handle(SIGXFSZ, &on_limit);
  resolve_open_calls();

  Filter f;
  for (const char* name : {"execve", "execveat"}) f.trap(name, "running a program");
  for (const char* name : {"fork", "vfork"}) f.trap(name, "starting a process");
  f.trap("clone", "starting a process", {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)});
  f.refuse("clone3", ENOSYS);  // its flags are out of a filter's sight; glibc falls back to clone
  trap_network(f);
  trap_writing_opens(f, "open", 1);
  trap_writing_opens(f, "openat", 2);
  f.trap("openat2", "opening a file");  // its flags are out of sight too
  f.trap("creat", "creating a file");
  for (const char* name : {"unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "mknod",
                           "mknodat", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate", "chmod", "fchmod",
                           "fchmodat", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "utimensat",
                           "futimesat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
                           "fremovexattr", "open_by_handle_at", "name_to_handle_at", "memfd_create"})
    f.trap(name, "changing files");
  for (const char* name : {"io_uring_setup", "io_uring_enter", "io_uring_register"}) f.trap(name, "asynchronous I/O");
  f.trap("tkill", "touching other processes");
  const auto self = static_cast<scmp_datum_t>(getpid());
  f.trap("kill", "signalling another process", {SCMP_A0(SCMP_CMP_NE, self)});
  f.trap("tgkill", "signalling another process", {SCMP_A0(SCMP_CMP_NE, self)});
  f.trap("prlimit64", "changing resource limits", {SCMP_A2(SCMP_CMP_NE, 0)});
  trap_system_changes(f, true);
  phase.store(kLoading);
  f.load();
}

void forbid_file_opens() {
  static std::once_flag once;
  std::call_once(once, [] {
    Filter f;
    for (const char* name : {"open", "openat", "openat2", "creat"}) f.trap(name, "opening a file");
    f.load();
    phase.store(kRunning);
  });
}

SandboxLimits compile_sandbox_limits(double timeout_s) {
  constexpr std::uint64_t MiB = 1024 * 1024;
  SandboxLimits limits;
  const char* v = std::getenv("HONE_COMPILE_MEMORY_MB");
  limits.memory_bytes = (v && *v ? std::strtoull(v, nullptr, 10) : 8192) * MiB;
  if (timeout_s > 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    limits.cpu_seconds = static_cast<std::uint64_t>(std::ceil(timeout_s * cores)) + 10;
  }
  return limits;
}

void enter_compile_sandbox(const SandboxLimits& limits) {
  // Inherited by the programs the compilers start; hard limits too, so none can raise them back.
  if (limits.memory_bytes) set_limit(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes, "RLIMIT_AS");
  if (limits.cpu_seconds) set_limit(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds, "RLIMIT_CPU");
  constexpr std::uint64_t kMaxFile = 1024ull * 1024 * 1024;  // a precompiled header is tens of MiB
  set_limit(RLIMIT_FSIZE, kMaxFile, kMaxFile, "RLIMIT_FSIZE");
  set_limit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE");

  Filter f;
  trap_network(f);
  trap_system_changes(f, false);
  // GCC raises its own stack limit when it starts and carries on when it may not: refuse, do not trap.
  f.refuse("setrlimit", EPERM);
  f.refuse("prlimit64", EPERM, {SCMP_A2(SCMP_CMP_NE, 0)});
  // The compilers may signal their own children, whose pids no filter knows in advance; a signal
  // to every process (pid -1) is never theirs.
  f.trap("kill", "signalling every process", {SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, 0xffffffffu)});
  f.load();
}

}  // namespace hone
