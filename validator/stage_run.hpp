#pragma once
// What the stages of one evaluation share: the device, the request, the op's spec, the loaded
// kernels, the stage in progress, the worst element seen so far, and the inputs the reference
// stage checked first (the consistency stage runs them again). A failing check throws
// StageFailure with its verdict; evaluate() returns it.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/host_tensor.hpp"
#include "core/index_inputs.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"
#include "validator/checked_elements.hpp"
#include "validator/evaluation.hpp"
#include "validator/kernel_args.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// Output buffers (Out and InOut) of one launch, and what the launch broke.
struct RunResult {
  std::vector<std::pair<std::size_t, HostTensor>> outputs;
  std::vector<HostTensor> before;  // per output: an in-out buffer as it went in (empty for an out buffer)
  std::vector<std::string> integrity;
  std::vector<std::vector<bool>> kept;  // the reference's only: per output, the in-out elements it leaves alone
  std::vector<CheckedElements> checked;  // per output: the elements compared with the reference (empty: all)
};

/// How a launch is set up beyond its inputs: scalars over the request's (a hidden test's drawn
/// values, an input case's), and an alias of the spec to pass in place (the written argument given
/// the input's buffer).
struct LaunchSetup {
  std::map<std::string, double> scalars;
  std::optional<std::pair<std::string, std::string>> in_place;  // (written, input)
  std::string call;                                             // "call 2 of 3" in a chain, for reasons
  const LaunchArgs* inputs = nullptr;  // the In buffers already on the device (upload_inputs), shared unless in place
};

/// How one check draws its inputs (validator/reference_check.hpp).
struct InputDraw {
  std::uint64_t seed = 1;
  const InputCase* input_case = nullptr;  // nullptr: the arguments' own distributions
  IndexModes modes;                       // index inputs not named: typical
  std::map<std::string, double> scalars;  // over the request's (a hidden test's drawn values)
};

/// How one check drew its inputs and the reference's results on them. The inputs themselves are
/// not kept: a draw is a function of its seed, so drawing again gives them back, and an attention
/// task's KV pool at batch 64 and 32K tokens is 8.6 GB: kept for the consistency stage beside the
/// next check's own and the device's copy, it ran a 23 GB machine out of memory on emu.
struct CheckedInputs {
  InputDraw draw;
  std::vector<RunResult> expected;
};

/// A stage failed: the verdict to return.
struct StageFailure {
  Verdict verdict;
};

class WatchedDevice;

struct StageRun {
  StageRun(Device& device, const EvaluationRequest& request, const StageListener& listener);

  Device& device;
  WatchedDevice* watched = nullptr;  // the same device when its launches are watched for hangs
  const EvaluationRequest& req;
  const StageListener& listener;
  LaunchListener on_launch;
  OpSpec op;
  std::string current = "load";
  std::unique_ptr<LoadedKernel> candidate, reference, baseline;
  std::optional<CheckedInputs> first;                  // how the reference stage drew its first inputs, and the results
  WorstElement worst;
  double max_abs_err = 0;
  nlohmann::json worst_bias;  // the unbiased-error check closest to its bound so far
  int timed_launches = 0;
  SharedOperands shared_operands;  // the large In buffers every check of this evaluation reuses

  /// Enters a stage (and tells the listener).
  void stage(const std::string& name);
  /// Names the launches that follow, for the verdict of a hang: "the candidate at tokens=7,..."
  void launching(const std::string& who, const Bindings& shape);
  /// Fails the stage in progress with `reason`.
  [[noreturn]] void fail(const std::string& reason, nlohmann::json detail = nlohmann::json::object());

  /// The launch of `k` at `shape`; a rule that does not hold there fails the stage.
  LaunchDims dims_at(const KernelUnderTest& k, const Bindings& shape);
  /// The In buffers of `host` on the device, uploaded once for the launches of one call (the
  /// candidate's and the reference's) to share through LaunchSetup::inputs; with the scalars of
  /// `setup`, which those launches must have too.
  std::unique_ptr<LaunchArgs> upload_inputs(const Bindings& shape, const std::vector<HostTensor>& host, const LaunchSetup& setup);
  /// One launch of `kernel` on fresh device buffers holding `host` (the In buffers shared when
  /// setup.inputs holds them); its outputs downloaded.
  RunResult run(LoadedKernel& kernel, const KernelUnderTest& k, const Bindings& shape, const std::vector<HostTensor>& host,
                const LaunchSetup& setup = {});
  /// The candidate's launch; a changed input or a written guard zone fails at consistency.
  RunResult run_candidate(const Bindings& shape, const std::vector<HostTensor>& host, const LaunchSetup& setup = {});
  /// Fails at consistency when a launch of the candidate broke an input or a guard zone.
  void check_integrity(const RunResult& r);
  RunResult run_reference(const Bindings& shape, const std::vector<HostTensor>& host, const LaunchSetup& setup = {});
  /// The first output outside the tolerance, or whose errors lean to one side
  /// (validator/error_bias.hpp), as a reason ("" when all agree); `what` says which inputs they
  /// were.
  std::string compare(const RunResult& got, const RunResult& expected, const Bindings& shape, const InputCase* input_case,
                      const std::string& what);
};

/// "tokens=7,hidden=4096".
std::string shape_text(const Bindings& shape);

}  // namespace hone
