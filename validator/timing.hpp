#pragma once
// Stage 5, timing: warm up, then the median of repeated launches on the device's own clock.
#include "runtime/device.hpp"
#include "validator/evaluation.hpp"
#include "validator/verdict.hpp"

namespace hone {

TimingStats time_kernel(Device& device, LoadedKernel& kernel, const LaunchDims& dims, void** args,
                        const TimingOptions& options);

/// Median, minimum and relative spread of a set of samples.
TimingStats summarize_samples(std::vector<double> samples_ms, const std::string& timer);

}  // namespace hone
