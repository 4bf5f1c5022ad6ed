#pragma once
// The rate a job's time estimate (validator/job_estimate.hpp) runs at on a device. On emu it is
// measured: a small streaming kernel and an arithmetic one launched on the emulator, since what
// a byte or a flop costs there is the emulator's own overhead, not the CPU's memory. On cuda it is
// the copy bandwidth the device measured as it opened and its peak arithmetic rate. On none
// nothing runs: the launch rate is unknown. On every device a job compiles each kernel with NVRTC:
// one compile of a small kernel is timed for that.
#include "runtime/device.hpp"
#include "validator/job_estimate.hpp"

namespace hone {

/// The launch rate, the measured NVRTC compile time and, where kernels run, the host's rate.
DeviceRate device_rate(const DeviceInfo& device);

/// The launch rate alone (compile_s stays 0).
DeviceRate launch_rate(const DeviceInfo& device);

/// Seconds NVRTC takes here for a small kernel that includes the bf16 header, as the family
/// kernels do; 0 when it cannot compile for `arch`.
double measure_compile_seconds(const std::string& arch);

/// Bytes a second the host draws as inputs (normal bf16, all cores), copies and compares: a
/// buffer of `elements` elements, timed once.
double measure_host_rate(std::size_t elements = std::size_t{1} << 23);

/// The emu measurement alone: two launches of a kernel over `elements` floats, one doing a
/// multiply-add per element and one doing `reps` of them. Throws std::runtime_error when the
/// calibration kernel does not build or run.
DeviceRate measure_emu_rate(long long elements = 1 << 18, int reps = 32);

}  // namespace hone
