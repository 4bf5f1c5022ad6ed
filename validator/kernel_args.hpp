#pragma once
// The arguments of one launch: inputs drawn from the spec's distributions, outputs poisoned,
// copied to device buffers, and the argument array a launch takes.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"

namespace hone {

/// Host values of every buffer argument (index as op.args; empty for scalars): In and InOut
/// drawn from their distribution with `seed`, Out poisoned.
std::vector<HostTensor> generate_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed);

class LaunchArgs {
 public:
  /// Uploads `host` to fresh device buffers and prepares scalar values from the shape and scalars.
  LaunchArgs(Device& device, const OpSpec& op, const Bindings& shape, const std::map<std::string, double>& scalars,
             const std::vector<HostTensor>& host);
  LaunchArgs(const LaunchArgs&) = delete;
  LaunchArgs& operator=(const LaunchArgs&) = delete;

  void** argv() { return argv_.data(); }
  /// Downloads buffer argument i into a host tensor of its dtype.
  HostTensor download(std::size_t i) const;

 private:
  Device& device_;
  const OpSpec& op_;
  const std::vector<HostTensor>& host_;
  std::vector<DeviceBuffer> buffers_;
  std::vector<void*> pointers_;
  std::vector<std::array<unsigned char, 8>> scalars_;
  std::vector<void*> argv_;
};

}  // namespace hone
