#pragma once
// What the stages of one evaluation share: the device, the request, the op's spec, the loaded
// kernels, the stage in progress, the worst element seen so far, and the inputs the reference
// stage checked first (the consistency stage runs them again). A failing check throws
// StageFailure with its verdict; evaluate() returns it.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/host_tensor.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"
#include "validator/evaluation.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// Output buffers (Out and InOut) of one launch, and what the launch broke.
struct RunResult {
  std::vector<std::pair<std::size_t, HostTensor>> outputs;
  std::vector<std::string> integrity;
};

/// A stage failed: the verdict to return.
struct StageFailure {
  Verdict verdict;
};

struct StageRun {
  StageRun(Device& device, const EvaluationRequest& request, const StageListener& listener);

  Device& device;
  const EvaluationRequest& req;
  const StageListener& listener;
  OpSpec op;
  std::string current = "load";
  std::unique_ptr<LoadedKernel> candidate, reference;
  std::optional<std::vector<HostTensor>> first_host;   // the reference stage's first inputs
  std::optional<RunResult> first_expected;             // and the reference's outputs on them
  WorstElement worst;
  double max_abs_err = 0;
  int timed_launches = 0;

  /// Enters a stage (and tells the listener).
  void stage(const std::string& name);
  /// Fails the stage in progress with `reason`.
  [[noreturn]] void fail(const std::string& reason, nlohmann::json detail = nlohmann::json::object());

  /// The launch of `k` at `shape`; a rule that does not hold there fails the stage.
  LaunchDims dims_at(const KernelUnderTest& k, const Bindings& shape);
  /// One launch of `kernel` on fresh device buffers holding `host`; its outputs downloaded.
  RunResult run(LoadedKernel& kernel, const KernelUnderTest& k, const Bindings& shape, const std::vector<HostTensor>& host);
  /// The candidate's launch; a changed input or a written guard zone fails at consistency.
  RunResult run_candidate(const Bindings& shape, const std::vector<HostTensor>& host);
  RunResult run_reference(const Bindings& shape, const std::vector<HostTensor>& host);
  /// The first output outside the tolerance as a reason ("" when all agree); `what` says which
  /// inputs they were.
  std::string compare(const RunResult& got, const RunResult& expected, const Bindings& shape, const InputCase* input_case,
                      const std::string& what);
};

/// "tokens=7,hidden=4096".
std::string shape_text(const Bindings& shape);

}  // namespace hone
