#pragma once
// The arguments of one launch: inputs drawn from the spec's distributions (or an input case's),
// outputs poisoned, copied to device buffers between guard zones, and the argument array a launch
// takes. After a launch, the inputs and the guard zones can be checked.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/index_inputs.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"
#include "validator/shared_operands.hpp"

namespace hone {

/// Host values of every buffer argument (index as op.args; empty for scalars): index inputs drawn
/// by their generators in `modes` (core/index_inputs.hpp), In and InOut drawn with `seed` from
/// their distribution, or from the input case's where it names them (an In buffer addressed by an
/// index only where it is addressed, poison elsewhere); Out poisoned, with NaN when `poison_seed`
/// is 0, else with finite garbage drawn from it; scratch filled with garbage
/// (core/scratch_fill.hpp). `previous`: the previous call's inputs in a chain; InOut buffers are
/// then left empty, for the caller to carry the state over.
/// `shared`: where large In arguments are kept once drawn (validator/shared_operands.hpp).
std::vector<HostTensor> generate_inputs(const OpSpec& op, const Bindings& shape, std::uint64_t seed,
                                        const InputCase* input_case = nullptr, const IndexModes& modes = {},
                                        const std::vector<HostTensor>* previous = nullptr, std::uint64_t poison_seed = 0,
                                        SharedOperands* shared = nullptr);

class LaunchArgs {
 public:
  /// Bytes before and after every buffer, filled with a pattern the kernel must leave alone. A
  /// multiple of 256 so that the buffer itself keeps cudaMalloc's alignment.
  static constexpr std::size_t kGuardBytes = 256;

  /// Uploads `host` to fresh device buffers and prepares scalar values from the shape and scalars.
  /// `inputs_only`: only the In buffers, for launches that share them (the constructor below).
  LaunchArgs(Device& device, const OpSpec& op, const Bindings& shape, const std::map<std::string, double>& scalars,
             const std::vector<HostTensor>& host, bool inputs_only = false);
  /// Fresh buffers for the outputs (Out and InOut, holding `host`'s values), the In buffers and
  /// the scalars of `inputs`: another launch on the same inputs that writes elsewhere. `inputs`
  /// must outlive it.
  LaunchArgs(const LaunchArgs& inputs, const std::vector<HostTensor>& host);
  LaunchArgs(const LaunchArgs&) = delete;
  LaunchArgs& operator=(const LaunchArgs&) = delete;

  void** argv() { return argv_.data(); }
  /// Passes buffer `onto` for argument `arg` as well (in place: `out` is `x`): `onto` holds its
  /// input and is then written, so it is no longer checked unchanged; download(arg) reads it.
  void alias(std::size_t arg, std::size_t onto);
  /// The device pointer of buffer argument i, as the kernel receives it.
  void* pointer(std::size_t i) const { return pointers_[i]; }
  /// Downloads buffer argument i (its first `count` elements, all of them by default) into a
  /// host tensor of its dtype.
  HostTensor download(std::size_t i, std::size_t count = SIZE_MAX) const;
  /// What the launch broke that it must not: an input buffer it changed, a guard zone it wrote
  /// (of the buffers this LaunchArgs holds: inputs it shares are the owner's to check). Empty
  /// when all is intact.
  std::vector<std::string> integrity_problems() const;

 private:
  Device& device_;
  const OpSpec& op_;
  const std::vector<HostTensor>& host_;
  void upload(std::size_t i);

  std::vector<DeviceBuffer> buffers_;   // guard, data, guard; none for a shared input
  std::vector<void*> pointers_;         // the data, as the kernel sees it
  std::vector<std::array<unsigned char, 8>> scalars_;
  std::vector<void*> argv_;
  std::vector<bool> written_;           // In buffers another argument aliases
};

}  // namespace hone
