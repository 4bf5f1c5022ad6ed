#pragma once
// Stage 5, timing: warm up, then the median of repeated launches on the device's own clock.
#include "runtime/device.hpp"
#include "validator/evaluation.hpp"
#include "validator/verdict.hpp"

namespace hone {

TimingStats time_kernel(Device& device, LoadedKernel& kernel, const LaunchDims& dims, void** args,
                        const TimingOptions& options);

/// Times two kernels in turns (a, b, a, b, ...) after warming both up, so that drift in the
/// machine's state (clocks, temperature, other load) affects both alike.
std::pair<TimingStats, TimingStats> time_interleaved(Device& device, LoadedKernel& a, const LaunchDims& a_dims, void** a_args,
                                                     LoadedKernel& b, const LaunchDims& b_dims, void** b_args,
                                                     const TimingOptions& options);

/// Median, minimum and relative spread of a set of samples.
TimingStats summarize_samples(std::vector<double> samples_ms, const std::string& timer);

/// Why `median_ms` is impossible on this device (below bytes over its memory bandwidth or flops
/// over its peak), or "" when it is possible or the device's limits are unknown.
std::string impossible_speed(double median_ms, double bytes, double flops, const DeviceInfo& device);

}  // namespace hone
