#pragma once
// Stage 5, timing, as an evaluation runs it: the candidate alone (validator/timing.hpp measures,
// validator/timing_plan.hpp plans batches and input rotation, validator/timed_launches.hpp gives
// every timed launch the buffers a checked launch gets), its timed launches' outputs compared
// with the reference's, rejected when faster than the device's physical floor; or the candidate
// and a baseline in turns (the winner against the reference, or a vendor library).
#include "validator/stage_run.hpp"

namespace hone {

/// The candidate's time in v.timing; an impossible speed fails the stage.
void timing_stage(StageRun& run, Verdict& v);

/// The candidate's time in v.timing, the baseline's (request.baseline, else the reference) timed in
/// turns with it in v.detail["baseline"]; both kernels' timed outputs are checked.
void timing_against_baseline_stage(StageRun& run, Verdict& v);

}  // namespace hone
