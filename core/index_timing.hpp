#pragma once
// The modes in which the timed launches draw a spec's index inputs. Where the typical draw leaves
// a launch's work to chance (ragged sequence lengths, half the bucket's bound on average), the
// timed launches draw the work the spec's bytes formula counts, so that an honest kernel at the
// memory's bandwidth does not look faster than the memory allows (the physical floor), and the
// bandwidth a table shows is the one achieved.
#include "core/index_inputs.hpp"
#include "core/op_spec.hpp"

namespace hone {

/// seq_lens: every sequence at `max` (mode "full"); the other generators: their typical mode.
IndexModes timing_index_modes(const OpSpec& op);

}  // namespace hone
