#include <doctest/doctest.h>

#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "support/family_copy.hpp"

using namespace hone;

// A misspelt key would otherwise be dropped: a "hidden_case" list that never runs, a "constraint"
// that constrains nothing.
TEST_CASE("op specs: a key the spec format does not have is refused, naming where it is and the keys that are") {
  const test::FamilyCopy family("rmsnorm", "spec-keys");
  const auto& dir = family.dir;
  const nlohmann::json& original = family.original_spec;
  auto write = [&](const nlohmann::json& spec) { family.write_spec(spec); };

  write(original);
  CHECK_NOTHROW(load_op_spec(dir));

  nlohmann::json spec = original;
  spec["hidden_case"] = spec["hidden_cases"];
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("the spec: unknown key 'hidden_case'"), InputError);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("hidden_cases"), InputError);

  spec = original;
  spec["args"][0]["rol"] = "out";
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("args[0]: unknown key 'rol'"), InputError);

  spec = original;
  spec["variants"][0]["constraint"] = nlohmann::json::array({"hidden % 2 == 0"});
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("variants[0]: unknown key 'constraint'"), InputError);

  spec = original;
  spec["reference"]["launc"] = spec["reference"]["launch"];
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("reference: unknown key 'launc'"), InputError);

  spec = original;
  spec["input_cases"][0]["tolerances"] = nlohmann::json::object();
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("input_cases[0]: unknown key 'tolerances'"), InputError);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("spec.json"), InputError);

  spec = original;
  spec["tolerance"]["bf16"]["row_rtl"] = 0.001;
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("tolerance.bf16: unknown key 'row_rtl'"), InputError);
  spec["tolerance"]["bf16"].erase("row_rtl");
  spec["tolerance"]["bf16"]["row_rtol"] = -0.001;
  write(spec);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("row_rtol must be a number >= 0"), InputError);
  spec["tolerance"]["bf16"]["row_rtol"] = 0.0005;
  write(spec);
  CHECK(load_op_spec(dir).tolerance.at(DType::bf16).row_rtol == doctest::Approx(0.0005));
}
