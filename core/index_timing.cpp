#include "core/index_timing.hpp"

namespace hone {

IndexModes timing_index_modes(const OpSpec& op) {
  IndexModes modes;
  for (const auto& a : op.args)
    if (a.index && a.index->kind == "seq_lens") modes[a.name] = "full";
  return modes;
}

}  // namespace hone
