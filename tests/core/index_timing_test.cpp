// The modes the timed launches draw index inputs in: every sequence at the bucket's length for a
// paged family (so the timed work is the bytes formula's), the typical mode for the others.
#include <doctest/doctest.h>

#include "core/index_timing.hpp"
#include "core/paths.hpp"

using namespace hone;

TEST_CASE("index timing modes: seq_lens drawn full for timing, other index inputs typical") {
  const OpSpec paged = load_op_spec(std::filesystem::path(HONE_TEST_DATA_DIR) / "families" / "paged_sum");
  CHECK(timing_index_modes(paged) == IndexModes{{"seq_lens", "full"}});
  const OpSpec slots = load_op_spec(std::filesystem::path(HONE_TEST_DATA_DIR) / "families" / "slot_update");
  CHECK(timing_index_modes(slots).empty());
  const OpSpec attention = load_op(templates_root(), "attention_decode");
  CHECK(timing_index_modes(attention) == IndexModes{{"seq_lens", "full"}});
}
