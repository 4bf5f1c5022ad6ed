#pragma once
// When a launch counts as a hang: after a time derived from the reference's own measured launch
// on the device, with a generous factor (kernels slower than the reference by far are still
// timed, not cut off) and a floor of a few seconds (a device's clock, a loaded CPU). `--timeout`
// replaces it by a fixed limit.
#include <string>

namespace hone {

constexpr double kHangFactor = 100;
constexpr double kHangFloorS = 5;

struct LaunchLimit {
  double seconds = 0;
  std::string basis;  // "100 times the reference's 0.8 ms launch on this device, at least 5 s"
};

/// The limit for an op whose reference launch takes `reference_ms` on the device.
LaunchLimit launch_limit_from_reference(double reference_ms);

/// The limit `--timeout` gives.
LaunchLimit launch_limit_given(double seconds);

}  // namespace hone
