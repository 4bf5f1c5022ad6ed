// A variant's "when": where a configuration is worth searching, over every shape symbol (the
// dynamic ones at their bucket's upper bound) and the variant's parameters; any other name is
// refused.
#include <doctest/doctest.h>

#include "core/input_error.hpp"
#include "core/op_spec.hpp"
#include "support/family_copy.hpp"

using namespace hone;

TEST_CASE("op specs: a variant's 'when' is an expression of the shape symbols, dynamic ones too, and nothing else") {
  const test::FamilyCopy family("rmsnorm", "spec-when");
  nlohmann::json spec = family.original_spec;
  spec["variants"][0]["when"] = "tokens >= 8";
  family.write_spec(spec);
  const OpSpec op = load_op_spec(family.dir);
  REQUIRE_FALSE(op.variants[0].when.empty());
  CHECK(op.variants[0].when.eval({{"tokens", 8}, {"hidden", 256}}) != 0);
  CHECK(op.variants[0].when.eval({{"tokens", 4}, {"hidden", 256}}) == 0);
  CHECK(op.variants[1].when.empty());

  spec["variants"][0]["when"] = "WIDTH >= 8";  // neither a shape symbol nor a parameter
  family.write_spec(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(family.dir), doctest::Contains("variants[0].when"), InputError);
}
