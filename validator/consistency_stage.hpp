#pragma once
// Stage 4, consistency: every launch leaves its inputs and guard zones intact (checked in
// StageRun::run_candidate, whatever the stage); the reference stage's first inputs run again after
// the reference, in another schedule of blocks, warps and threads where the device can choose one;
// and after the timing the candidate is checked once more on inputs it has not seen.
#include "validator/stage_run.hpp"

namespace hone {

/// The second run of the first inputs, after the reference, in another schedule.
void consistency_stage(StageRun& run);

/// After the timed launches: a fresh seed, checked against the reference.
void after_timing_check(StageRun& run);

}  // namespace hone
