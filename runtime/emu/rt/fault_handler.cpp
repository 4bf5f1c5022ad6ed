#include "fault_handler.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "guard_zones.hpp"
#include "hone_emu/abi.h"

namespace hone::emu {

namespace {

// initial-exec: the handler must not be the first to touch these (no lazy TLS allocation).
#define HONE_HANDLER_TLS thread_local __attribute__((tls_model("initial-exec")))
HONE_HANDLER_TLS std::uintptr_t tl_smem_start = 0;
HONE_HANDLER_TLS std::size_t tl_smem_bytes = 0;
HONE_HANDLER_TLS std::uintptr_t tl_smem_guard_lo = 0;
HONE_HANDLER_TLS std::uintptr_t tl_smem_guard_hi = 0;
HONE_HANDLER_TLS int tl_in_handler = 0;

std::atomic<FatalReporter> reporter{nullptr};
std::mutex install_mutex;
struct sigaction previous {};

constexpr std::size_t kAltStackBytes = 64 * 1024;

void on_fault(int sig, siginfo_t* info, void* context);

bool handler_installed() {
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  return (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == &on_fault;
}

// Whatever handled SIGSEGV before us gets the fault; with nothing there, the default action
// runs when the faulting instruction is retried on return.
void pass_on(int sig, siginfo_t* info, void* context) {
  const struct sigaction prev = previous;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler) {
    prev.sa_handler(sig);
    return;
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}

bool is_write_fault(void* context) {
#if defined(__x86_64__)
  // The page-fault error code: bit 1 is set for a write.
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)context;
  return false;
#endif
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (tl_in_handler++) {  // a fault inside the handler: give up quietly, the default action ends us
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
    return;
  }
  SignalText reason;
  if (!explain_fault(reinterpret_cast<std::uintptr_t>(info->si_addr), is_write_fault(context), reason)) {
    --tl_in_handler;
    pass_on(sig, info, context);
    return;
  }
  if (FatalReporter report = reporter.load()) report(reason.c_str());  // does not return
  SignalText line;
  line.add("hone emu: ").add(reason.c_str()).add("\n");
  [[maybe_unused]] const ssize_t ignored = ::write(2, line.c_str(), line.size());
  --tl_in_handler;
  pass_on(sig, info, context);
}

void add_where(SignalText& text) {
  SignalText who;
  if (describe_running_thread(who)) text.add(" in ").add(who.c_str());
}

}  // namespace

void set_fatal_reporter(FatalReporter r) { reporter.store(r); }

void install_fault_handler() {
  if (handler_installed()) return;
  std::lock_guard lock(install_mutex);
  if (handler_installed()) return;
  struct sigaction action {};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  struct sigaction old {};
  sigaction(SIGSEGV, &action, &old);
  previous = old;
}

void ensure_alternate_signal_stack() {
  static thread_local bool done = false;
  if (done) return;
  done = true;
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;  // someone set one
  // Leaked with the thread: the pool's threads live as long as the process.
  void* mem = mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  stack_t alt{};
  alt.ss_sp = mem;
  alt.ss_size = kAltStackBytes;
  sigaltstack(&alt, nullptr);
}

thread_local detail::RunningStack detail::running_stack;

void set_running_shared_memory(std::uintptr_t start, std::size_t bytes, std::uintptr_t guard_lo, std::uintptr_t guard_hi) {
  tl_smem_start = start;
  tl_smem_bytes = bytes;
  tl_smem_guard_lo = guard_lo;
  tl_smem_guard_hi = guard_hi;
}

bool describe_running_thread(SignalText& text) {
  const hone_emu_thread* t = hone_emu_self;
  if (!t) return false;
  text.add("block ").triple(t->block_idx.x, t->block_idx.y, t->block_idx.z);
  text.add(" thread ").triple(t->thread_idx.x, t->thread_idx.y, t->thread_idx.z);
  return true;
}

bool explain_fault(std::uintptr_t address, bool is_write, SignalText& reason) {
  const char* access = is_write ? "write to" : "read of";
  if (hone_emu_self && address >= detail::running_stack.guard_lo && address < detail::running_stack.guard_hi) {
    reason.add("fiber stack overflow");
    add_where(reason);
    reason.add(": the kernel needs more than ").add(std::uint64_t{detail::running_stack.bytes / 1024});
    reason.add(" KiB of stack per thread (deep recursion or large local arrays; HONE_EMU_STACK_KB sets the size)");
    return true;
  }
  if (address >= tl_smem_guard_lo && address < tl_smem_guard_hi) {
    reason.add("out-of-bounds ").add(access).add(" dynamic shared memory at byte offset ");
    reason.add(std::uint64_t{address - tl_smem_start}).add(" (the launch gave ").add(std::uint64_t{tl_smem_bytes});
    reason.add(" bytes)");
    add_where(reason);
    return true;
  }
  GuardedBuffer b;
  if (!find_guarded_buffer(address, b)) {
    // Past the guard zones, in memory nothing of the launch maps: on the GPU an illegal address,
    // the kernel's fault all the same. Outside a kernel thread it is not ours to explain.
    if (!hone_emu_self) return false;
    reason.add("out-of-bounds ").add(access).add(" address ").hex(address).add(", outside every buffer and guard zone");
    add_where(reason);
    return true;
  }
  reason.add("out-of-bounds ").add(access).add(" buffer '").add(b.name[0] ? b.name : "(unnamed)").add("' (");
  reason.add(std::uint64_t{b.bytes}).add(" bytes) ");
  if (address < b.start) {
    reason.add(std::uint64_t{b.start - address}).add(" bytes before its start");
  } else {
    const std::uintptr_t end = b.start + b.bytes;
    reason.add("at byte offset ").add(std::uint64_t{address - b.start}).add(", ");
    reason.add(std::uint64_t{address - end}).add(" bytes past its end");
  }
  add_where(reason);
  return true;
}

}  // namespace hone::emu
