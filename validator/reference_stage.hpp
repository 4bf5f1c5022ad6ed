#pragma once
// Stage 2, reference: fresh inputs from every seed with the arguments' own distributions, and the
// spec's input cases with the first seed; outputs poisoned; the candidate runs first, on fresh
// buffers, then the reference; compared under the op's tolerance.
#include "validator/stage_run.hpp"

namespace hone {

/// Records the checks it made in v.detail["reference_checks"]; keeps how the first inputs were
/// drawn and the reference's outputs in `run` for the consistency stage.
void reference_stage(StageRun& run, Verdict& v);

}  // namespace hone
