#pragma once
// One evaluation of a candidate on a device, as the worker process runs it: the reference check
// (stage 2, validator/reference_stage.hpp), the hidden tests (3, hidden_stage.hpp), the
// consistency checks (4, consistency_stage.hpp) and the timing (5, timing_stage.hpp). Stage 1,
// static, runs before a candidate reaches the worker (static_stage.hpp).
#include <functional>
#include <string>

#include "runtime/device.hpp"
#include "validator/evaluation_request.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// Called with a stage name before each stage starts, so a crash can be attributed to it.
using StageListener = std::function<void(const std::string& stage)>;
/// Called before each launch (or group of timed launches) starts: a long evaluation speaks while
/// it works, so that whoever waits for it can tell it from a silent one.
using LaunchListener = std::function<void()>;

/// Runs the stages on `device`. Kernel faults become failing verdicts; a kernel that crashes the
/// process takes the process with it (hence the worker).
Verdict evaluate(Device& device, const EvaluationRequest& request, const StageListener& on_stage = {},
                 const LaunchListener& on_launch = {});

}  // namespace hone
