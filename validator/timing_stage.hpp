#pragma once
// Stage 5, timing, as an evaluation runs it: the candidate alone (validator/timing.hpp measures,
// validator/timing_plan.hpp plans batches and input rotation), rejected when faster than the
// device's physical floor; or the candidate and the reference in turns (the winner against its
// baseline).
#include "validator/stage_run.hpp"

namespace hone {

/// The candidate's time in v.timing; an impossible speed fails the stage.
void timing_stage(StageRun& run, Verdict& v);

/// The candidate's time in v.timing, the reference's timed in turns with it in v.detail["baseline"].
void timing_against_reference_stage(StageRun& run, Verdict& v);

}  // namespace hone
