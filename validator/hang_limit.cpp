#include "validator/hang_limit.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace hone {

LaunchLimit launch_limit_from_reference(double reference_ms) {
  LaunchLimit l;
  l.seconds = std::max(kHangFloorS, kHangFactor * reference_ms * 1e-3);
  l.basis = fmt::format("the limit is {:g} times the reference's {:.3g} ms launch on this device, at least {:g} s", kHangFactor,
                        reference_ms, kHangFloorS);
  return l;
}

LaunchLimit launch_limit_given(double seconds) { return {seconds, fmt::format("the limit is --timeout {:g} s", seconds)}; }

}  // namespace hone
