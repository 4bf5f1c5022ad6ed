#pragma once
// One check of the candidate against the reference, as every checking stage makes it: inputs
// drawn, the candidate run first on fresh buffers (nothing of the reference's is left to read),
// then the reference, the outputs compared; every call of a chain (validator/chained_calls.hpp);
// and where the spec lets an output alias an input, once more in place, the output's buffer
// being the input's, so that a kernel wrong in place is rejected saying so.
#include <string>

#include "validator/stage_run.hpp"

namespace hone {

/// Checks the candidate at `shape` on inputs drawn as `draw` says; fails the stage in progress on
/// the first mismatch, with a reason that names `what` (the seed, the case, the hidden test).
/// Returns how the inputs were drawn and the reference's results.
CheckedInputs check_against_reference(StageRun& run, const Bindings& shape, const InputDraw& draw, const std::string& what);

/// The candidate again on the inputs of an earlier check, drawn again as that check drew them, on
/// separate buffers: the first mismatch with the reference's results then ("" when none).
std::string recheck(StageRun& run, const Bindings& shape, const CheckedInputs& checked, const std::string& what);

}  // namespace hone
