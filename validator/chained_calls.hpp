#pragma once
// Calls in a row on the same state (a spec's "chain": {"calls": k}): an engine's decode steps
// run a state-pool kernel once per step on the same conv or DeltaNet state, with new inputs and
// slots each step. Each later call redraws the inputs (index inputs told the previous call's, so
// that slots come back on other rows) and takes its in-out buffers from what the call before
// left; candidate and reference each run the whole chain on their own state.
#include <memory>
#include <vector>

#include "core/host_tensor.hpp"
#include "validator/stage_run.hpp"

namespace hone {

/// The inputs of every call of a check: call 0 drawn with `draw`, each later call from a seed of
/// its own, its in-out buffers left empty; large In buffers kept in `shared` when given.
std::vector<std::vector<HostTensor>> draw_calls(const OpSpec& op, const Bindings& shape, const InputDraw& draw,
                                                SharedOperands* shared = nullptr);

/// Per call, its In buffers on the device (StageRun::upload_inputs), for the candidate's and the
/// reference's launches to share: an MoE layer's expert weights are uploaded once, not per launch.
using UploadedCalls = std::vector<std::unique_ptr<LaunchArgs>>;
UploadedCalls upload_calls(StageRun& run, const Bindings& shape, const std::vector<std::vector<HostTensor>>& calls,
                           const LaunchSetup& setup);

/// Runs `calls` in a row with the candidate (or the reference), each call's in-out buffers those
/// the previous call left; one result per call. The candidate's launches are checked as
/// StageRun::run_candidate checks them. `uploaded`: the calls' In buffers, shared (null: each
/// launch uploads its own).
std::vector<RunResult> run_calls(StageRun& run, bool candidate, const Bindings& shape,
                                 const std::vector<std::vector<HostTensor>>& calls, const LaunchSetup& setup,
                                 const UploadedCalls* uploaded = nullptr);

}  // namespace hone
