// The consistency stage runs the candidate again on the inputs of the first check, drawn again
// from that check's draw rather than kept (validator/stage_run.hpp, CheckedInputs): that is sound
// only if a draw gives back the same bytes, every call of a chain, every index input, every pool
// addressed through one and every large operand shared between checks included.
#include <doctest/doctest.h>

#include "core/index_inputs.hpp"
#include "core/paths.hpp"
#include "validator/chained_calls.hpp"

using namespace hone;

namespace {

bool same_calls(const std::vector<std::vector<HostTensor>>& a, const std::vector<std::vector<HostTensor>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t c = 0; c < a.size(); ++c) {
    if (a[c].size() != b[c].size()) return false;
    for (std::size_t i = 0; i < a[c].size(); ++i)
      if (a[c][i].dtype != b[c][i].dtype || a[c][i].bytes != b[c][i].bytes) return false;
  }
  return true;
}

const InputCase& input_case(const OpSpec& op, const std::string& name) {
  for (const auto& c : op.input_cases)
    if (c.name == name) return c;
  FAIL("no input case " << name);
  throw;
}

}  // namespace

TEST_CASE("redrawn inputs: a chain of state-pool calls with its slots, drawn twice from one draw, is the same") {
  const OpSpec op = load_op(templates_root(), "gdn_gated_decode");
  REQUIRE(op.chain_calls == 3);
  const Bindings shape{{"B", 2}, {"H", 1}, {"HV", 2}, {"K", 16}, {"V", 16}, {"SLOTS", 5}};
  SharedOperands shared(1);  // every In buffer counts as large: the second draw takes them from here
  const auto modes = adversarial_index_modes(op, shape);  // a hidden test's slots: repeats, the pool's ends
  REQUIRE_FALSE(modes.empty());
  const InputDraw draw{77, &input_case(op, "slow_decay"), {modes.front()}, {}};
  const auto first = draw_calls(op, shape, draw, &shared);
  CHECK(same_calls(first, draw_calls(op, shape, draw, &shared)));
  CHECK(shared.draws() > 0);
  const auto unshared = draw_calls(op, shape, draw);
  CHECK(same_calls(unshared, draw_calls(op, shape, draw)));

  InputDraw other = draw;
  other.seed = 78;
  CHECK_FALSE(same_calls(unshared, draw_calls(op, shape, other)));
}

TEST_CASE("redrawn inputs: a paged KV pool, addressed through a block table, drawn twice from one draw, is the same") {
  const OpSpec op = load_op(templates_root(), "attention_decode");
  const Bindings shape{{"batch", 2}, {"HQ", 4}, {"HKV", 2}, {"D", 16}, {"PAGE", 4},
                       {"MAXP", 3}, {"q_stride", 96}, {"page_stride", 128}};
  const InputDraw draw{5, &input_case(op, "mixed_scale"), {}, {}};
  const auto first = draw_calls(op, shape, draw);
  CHECK(same_calls(first, draw_calls(op, shape, draw)));

  InputDraw other = draw;
  other.input_case = nullptr;
  CHECK_FALSE(same_calls(first, draw_calls(op, shape, other)));
}
