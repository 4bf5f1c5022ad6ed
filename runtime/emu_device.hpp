#pragma once
// The emu device: kernels built by compile_for_emu run on the CPU. Its times are CPU times and
// are labelled so (timer "cpu").
//
// Every buffer it allocates lies between inaccessible guard regions (see
// runtime/emu/rt/guarded_memory.hpp): a kernel that reads or writes past a buffer faults there,
// and the fault handler names the buffer, the offset and the thread. Static and dynamic shared
// memory start every block poisoned with 0xff bytes (NaN as floats). set_schedule_seed shuffles
// the order of blocks and threads, so that a race shows as a different result.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "runtime/device.hpp"

namespace hone {

struct EmuDeviceOptions {
  /// Called on the launching thread before every launch, before any kernel code runs (the
  /// worker's sandbox forbids opening files from the first launch on).
  std::function<void()> before_launch;
};

/// An emu device that checks and compiles for `arch` (the architecture whose code it emulates).
std::unique_ptr<Device> make_emu_device(const std::string& arch, EmuDeviceOptions options = {});

/// From now on a fault the emu device can explain (a guard-page hit, a fiber stack overflow)
/// ends the process through report_fatal_fault with that explanation. The worker process calls
/// this; elsewhere the explanation goes to stderr and the process dies of the signal.
void report_emu_faults_fatally();

/// Starts the OS threads that run blocks now (they start on first use otherwise); returns how
/// many run blocks in all. A sandbox calls this before it forbids what starting threads needs.
unsigned start_emu_threads();

/// Fiber switches (resumptions of emulated CUDA threads) in this process so far, over all launches.
std::uint64_t emu_fiber_switches();

/// Posts at shuffles of the constant whole warp that kernels run as warp loops wrote themselves
/// (a store, not a call into the runtime), in this process so far: in plain order, every one.
std::uint64_t emu_shuffle_records();

/// Bytes of stack each emulated CUDA thread (a fiber) gets: $HONE_EMU_STACK_KB KiB, else 256 KiB.
std::size_t emu_fiber_stack_bytes();

/// The CPU's model name, from /proc/cpuinfo.
std::string cpu_model_name();

}  // namespace hone
