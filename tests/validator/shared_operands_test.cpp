// Large In buffers drawn once per evaluation (validator/shared_operands.hpp): later draws get the
// same weights and fresh everything else; another distribution, a small buffer or a state the
// kernel writes is drawn anew.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "validator/kernel_args.hpp"

using namespace hone;

namespace {
bool same_bytes(const HostTensor& a, const HostTensor& b) { return a.bytes == b.bytes; }
}  // namespace

TEST_CASE("shared operands: a large weight is drawn once, the activations of every draw are new") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const Bindings shape{{"M", 2}, {"N", 64}, {"K", 64}};  // w 8 KiB, x 256 bytes
  const std::size_t w = op.arg_index("w"), x = op.arg_index("x");
  SharedOperands shared(4096);
  const auto first = generate_inputs(op, shape, 11, nullptr, {}, nullptr, 0, &shared);
  const auto second = generate_inputs(op, shape, 12, nullptr, {}, nullptr, 0, &shared);
  CHECK(same_bytes(first[w], second[w]));
  CHECK_FALSE(same_bytes(first[x], second[x]));
  CHECK(shared.draws() == 1);
  // Handed out without a copy: both checks hold the one drawn matrix.
  CHECK(first[w].bytes.shares_with(second[w].bytes));
  CHECK_FALSE(first[x].bytes.shares_with(second[x].bytes));

  // What it would have been without sharing: the first draw is the plain draw of its seed.
  const auto plain = generate_inputs(op, shape, 11);
  CHECK(same_bytes(plain[w], first[w]));
  CHECK_FALSE(same_bytes(generate_inputs(op, shape, 12)[w], first[w]));

  // A hidden case that draws w from another distribution gets a w of its own.
  const InputCase* large = nullptr;
  for (const auto& c : op.hidden_cases)
    if (c.name == "large") large = &c;
  REQUIRE(large);
  const auto adversarial = generate_inputs(op, shape, 13, large, {}, nullptr, 0, &shared);
  CHECK_FALSE(same_bytes(adversarial[w], first[w]));
  CHECK(shared.draws() == 2);
}

TEST_CASE("shared operands: a buffer under the threshold, and a state the kernel updates, are drawn anew every time") {
  const OpSpec op = load_op(templates_root(), "gdn_decode");
  const Bindings shape{{"B", 1}, {"H", 1}, {"HV", 2}, {"K", 16}, {"V", 16}};
  const std::size_t state = op.arg_index("state"), q = op.arg_index("q");
  SharedOperands shared(1);  // every In buffer counts as large
  const auto first = generate_inputs(op, shape, 21, nullptr, {}, nullptr, 0, &shared);
  const auto second = generate_inputs(op, shape, 22, nullptr, {}, nullptr, 0, &shared);
  CHECK_FALSE(same_bytes(first[state], second[state]));  // in-out: never shared
  CHECK(same_bytes(first[q], second[q]));

  SharedOperands big_only;  // the default threshold: nothing here is that large
  CHECK_FALSE(same_bytes(generate_inputs(op, shape, 21, nullptr, {}, nullptr, 0, &big_only)[q],
                         generate_inputs(op, shape, 22, nullptr, {}, nullptr, 0, &big_only)[q]));
  CHECK(big_only.draws() == 0);
}
