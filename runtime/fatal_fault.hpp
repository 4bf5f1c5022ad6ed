#pragma once
// A fault that ends the process running a candidate (a guard page hit, a forbidden system call,
// a fiber stack overflow) is reported before the process exits, so the verdict can say what
// happened instead of only "killed by signal 11".
namespace hone {

/// The file descriptor that fatal faults are reported on: one JSON line
/// {"type":"fault","reason":"..."}; -1 (the default) reports nothing.
void set_fatal_fault_fd(int fd);

/// Writes the reason (JSON-escaped) to the fault descriptor and ends the process with
/// kFatalFaultExit. Async-signal-safe: signal handlers call it.
[[noreturn]] void report_fatal_fault(const char* reason);

inline constexpr int kFatalFaultExit = 70;

}  // namespace hone
