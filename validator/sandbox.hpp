#pragma once
// The sandbox a candidate kernel runs in, inside the worker process.
//
// Design. The worker (hone-worker) forks one child per evaluation; only the child loads and runs
// kernels, so whatever a kernel does to its process dies with it, and the worker itself never
// maps candidate code. The child, before it loads anything:
//   1. sets resource limits: address space (RLIMIT_AS), CPU time (RLIMIT_CPU, a backstop for the
//      client's wall-clock timeout), no file may grow (RLIMIT_FSIZE=0), no core dumps;
//   2. installs a seccomp filter (libseccomp) that traps (SECCOMP_RET_TRAP) what a kernel never
//      needs: running programs (execve), new processes (fork, vfork, clone without
//      CLONE_THREAD; clone3 answers ENOSYS so that threads fall back to clone, whose flags a
//      filter can see), sockets, opening files for writing or creating them, removing, renaming,
//      linking and changing files, ptrace, signals to other processes, raising limits, io_uring
//      (which would open files behind the filter's back), and the like. Threads stay allowed:
//      the emu device runs blocks on a pool of them.
// dlopen needs to open the kernel's shared object, so reading files stays allowed while the
// kernel is loaded; from the first launch on (forbid_file_opens, called by the emu device before
// a launch) a second filter, stacked on the first, traps every open. Host code that would run
// at load time (static initialisers) is refused before loading (runtime/emu/compile/
// elf_initialisers.hpp); what remains (an IFUNC resolver) runs under the first filter.
//
// A trapped call raises SIGSYS; the handler reports "forbidden system call <name>" with where it
// came from (the emulated thread, or loading) through report_fatal_fault, and the child exits.
// The exception: an open by code that is not kernel code (hone's own, after the first launch)
// fails with EPERM instead, so that a library that probes a file degrades instead of dying.
//
// Not covered: a kernel can still write to the descriptors it inherits (the protocol pipe), so
// the sandbox protects the host, not the honesty of the verdict; the validation stages check that.
//
// Compiling untrusted source (validator/isolated_build.hpp) runs under a second, looser profile:
// NVRTC and the host compiler it starts must run programs (g++, cc1plus, as, ld) and write their
// outputs, so those stay allowed; networking, touching other processes, raising limits and
// changing the system are not. Its address space, CPU time and file sizes are limited, and a
// trapped call ends the compile (SIGSYS, no handler): the build fails, hone carries on.
#include <cstdint>

namespace hone {

struct SandboxLimits {
  std::uint64_t memory_bytes = 0;  // RLIMIT_AS; 0: unlimited
  std::uint64_t cpu_seconds = 0;   // RLIMIT_CPU; 0: unlimited
};

/// Limits for a process whose emu device runs blocks on `threads` OS threads, with the client's
/// time limit `timeout_s` (0: none), evaluating an op whose buffers take `buffer_bytes`: room for
/// every thread's fiber stacks and malloc arena, 2 GiB, and eight times the buffers (the host
/// draw, the device copy, the downloads, the in-out buffers' copies before the launch, the
/// reference's second launch on signalling NaN), or $HONE_WORKER_MEMORY_MB; CPU time for every
/// thread busy for the whole time limit.
SandboxLimits default_sandbox_limits(unsigned threads, double timeout_s, std::uint64_t buffer_bytes = 0);

/// Step 1, before any kernel is loaded: the limits, the SIGSYS/SIGXCPU/SIGXFSZ handlers and the
/// first filter. Throws std::runtime_error when the filter cannot be installed.
void enter_sandbox(const SandboxLimits& limits);

/// Step 2, once the kernels are loaded: no file may be opened any more. Safe to call repeatedly.
void forbid_file_opens();

/// Limits for compiling one kernel within `timeout_s` (0: none): 8 GiB of address space, or
/// $HONE_COMPILE_MEMORY_MB, and CPU time for the whole time limit on every core.
SandboxLimits compile_sandbox_limits(double timeout_s);

/// The compile profile above, for this process and the compilers it starts. Throws
/// std::runtime_error when the filter cannot be installed.
void enter_compile_sandbox(const SandboxLimits& limits);

}  // namespace hone
