// Flags: static shape symbols that switch a behaviour (moe_topk_softmax's renormalize), 0 or 1
// where every other symbol is a positive size.
#include <doctest/doctest.h>

#include "core/input_error.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "support/family_copy.hpp"

using namespace hone;

TEST_CASE("op specs: a flag takes 0 or 1, any other symbol a positive value") {
  const OpSpec op = load_op(templates_root(), "moe_topk_softmax");
  REQUIRE(op.flags.count("renormalize"));
  CHECK_NOTHROW(op.check_shape({{"tokens", 1}, {"E", 64}, {"TOPK", 4}, {"renormalize", 0}}));
  CHECK_NOTHROW(op.check_shape({{"tokens", 1}, {"E", 64}, {"TOPK", 4}, {"renormalize", 1}}));
  CHECK_THROWS_WITH_AS(op.check_shape({{"tokens", 1}, {"E", 64}, {"TOPK", 4}, {"renormalize", 2}}),
                       doctest::Contains("renormalize=2; it is a flag: 0 or 1"), InputError);
  CHECK_THROWS_WITH_AS(op.check_shape({{"tokens", 1}, {"E", 64}, {"TOPK", 0}, {"renormalize", 1}}),
                       doctest::Contains("TOPK=0; it must be positive"), InputError);
}

TEST_CASE("op specs: flags must name static symbols") {
  const test::FamilyCopy family("moe_topk_softmax", "spec-flags");
  nlohmann::json spec = family.original_spec;
  spec["flags"] = {"tokens"};  // dynamic
  family.write_spec(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(family.dir), doctest::Contains("flags names '\"tokens\"', which is not a static symbol"), InputError);
  spec["flags"] = {"renormalise"};
  family.write_spec(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(family.dir), doctest::Contains("flags names '\"renormalise\"'"), InputError);
}
