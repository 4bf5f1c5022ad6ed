#pragma once
// The SIGSEGV handler of the emu device. A kernel that touches a guard region (a buffer's, its
// fiber stack's, its dynamic shared memory's) cannot go on, and neither can the process: the
// handler names what was hit and who hit it, hands the reason to the fatal reporter (the worker
// process sets hone::report_fatal_fault) and the process ends. Without a reporter the reason
// goes to stderr and the process dies of the SIGSEGV as it would have. Faults elsewhere are
// passed on to whatever handled SIGSEGV before.
//
// The handler runs on an alternate signal stack, which every OS thread that runs fibers gets:
// a fiber that overflowed its stack has none left to run a handler on.
#include <cstddef>
#include <cstdint>

#include "signal_text.hpp"

namespace hone::emu {

/// Reports the reason for a fault that ends the process and does not return.
using FatalReporter = void (*)(const char* reason);
void set_fatal_reporter(FatalReporter reporter);

/// Installs the handler unless it is already the one in place (a test framework may have
/// replaced it since); the handler it replaces is kept and called for faults that are not ours.
void install_fault_handler();
/// Gives the calling thread an alternate signal stack unless it has one.
void ensure_alternate_signal_stack();

/// What the handler knows about the OS thread it runs on, kept up to date by the block scheduler:
/// the guard region below the running fiber's stack, and this block's dynamic shared memory.
namespace detail {
struct RunningStack {
  std::uintptr_t guard_lo = 0, guard_hi = 0;
  std::size_t bytes = 0;
};
// initial-exec: the handler must not be the first to touch it (no lazy TLS allocation), and the
// scheduler sets it at every switch.
extern thread_local RunningStack running_stack __attribute__((tls_model("initial-exec")));
}  // namespace detail
inline void set_running_stack_guard(std::uintptr_t lo, std::uintptr_t hi, std::size_t stack_bytes) {
  detail::running_stack = {lo, hi, stack_bytes};
}
void set_running_shared_memory(std::uintptr_t start, std::size_t bytes, std::uintptr_t guard_lo, std::uintptr_t guard_hi);

/// Appends "block (x,y,z) thread (x,y,z)" for the emulated thread running on this OS thread;
/// false (and nothing appended) outside a kernel. Async-signal-safe.
bool describe_running_thread(SignalText& text);

/// The reason the handler gives for a fault at `address` (is_write: a store), or false when the
/// address is not in any guard region it knows. Async-signal-safe; exposed for tests.
bool explain_fault(std::uintptr_t address, bool is_write, SignalText& reason);

}  // namespace hone::emu
