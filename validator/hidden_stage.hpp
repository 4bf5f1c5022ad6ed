#pragma once
// Stage 3, hidden tests: the candidate against the reference on the shapes and inputs of
// validator/hidden_tests.hpp, which the proposer never sees; their seeds drawn here, at validation
// time, unless the request fixes one.
#include "validator/stage_run.hpp"

namespace hone {

void hidden_stage(StageRun& run);

}  // namespace hone
