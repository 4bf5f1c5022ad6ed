#pragma once
// The buffers of a timing, so that a timed launch is indistinguishable from a checked one: every
// launch of a sample writes its own output and in-out buffers, and before every sample (outside
// its timed region) each of them is restored: outputs poisoned, with NaN in some launches and
// finite garbage in others, in-out buffers (gdn_decode's state) a fresh copy of their initial
// values. Inputs rotate among copies in fresh buffers, as the timing plan says. Afterwards every
// launch's outputs are read back, to be compared with the reference: a kernel that does less work
// when its output already holds a number, or once it has been called many times, is found.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"
#include "validator/kernel_args.hpp"
#include "validator/timing.hpp"

namespace hone {

/// How many kinds of poison the launches of a timing cycle through: finite garbage, NaN, finite
/// garbage from another seed. Finite first: a timing of one sample (a long launch on a CPU clock)
/// meets the poison only the timing uses; the checked launches before it saw NaN.
constexpr int kPoisonKinds = 3;

class TimedLaunches {
 public:
  /// `launches` launches per sample (1: single launches, which then rotate among kPoisonKinds
  /// sets of buffers, sample by sample), inputs `host` in `input_sets` copies.
  TimedLaunches(Device& device, const OpSpec& op, const Bindings& shape, const std::map<std::string, double>& scalars,
                const std::vector<HostTensor>& host, int launches, int input_sets);
  TimedLaunches(const TimedLaunches&) = delete;
  TimedLaunches& operator=(const TimedLaunches&) = delete;

  /// What the samples launch, in turn.
  const std::vector<TimedSample>& samples() const { return samples_; }
  /// How many launches have buffers of their own.
  std::size_t size() const { return slots_.size(); }
  /// Launch i's Out and InOut buffers as they are now (index as op.args), and what it broke.
  std::vector<std::pair<std::size_t, HostTensor>> outputs(std::size_t i) const;
  std::vector<std::string> integrity_problems(std::size_t i) const;
  /// What launch i's outputs were poisoned with before each sample: "NaN" or "finite numbers".
  static const char* poison_kind(std::size_t i);

 private:
  const OpSpec& op_;
  std::vector<std::vector<HostTensor>> poisoned_;  // per kind: what a launch writes, the outputs so poisoned; inputs left empty
  std::vector<std::unique_ptr<LaunchArgs>> slots_;
  std::vector<std::unique_ptr<LaunchArgs>> pristine_;  // per kind: device copies of poisoned outputs and initial in-out values
  std::vector<TimedSample> samples_;
};

}  // namespace hone
