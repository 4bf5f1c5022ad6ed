#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/host_tensor.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "support/family_copy.hpp"

using namespace hone;

TEST_CASE("op specs: every runtime scalar of every family names the range engines pass it") {
  for (const auto& name : list_op_families(templates_root())) {
    CAPTURE(name);
    const OpSpec op = load_op(templates_root(), name);
    for (const auto& a : op.args) {
      if (a.pointer || !dtype_is_float(a.dtype)) continue;
      CAPTURE(a.name);
      CHECK(a.range_lo < a.range_hi);
      CHECK(a.float_value >= a.range_lo);
      CHECK(a.float_value <= a.range_hi);
    }
  }
  const OpSpec rmsnorm = load_op(templates_root(), "rmsnorm");
  CHECK(rmsnorm.find_arg("eps")->range_lo == doctest::Approx(1e-7));
  CHECK(rmsnorm.find_arg("eps")->range_hi == doctest::Approx(1e-4));
}

TEST_CASE("op specs: a float scalar without a range, or with a bad one, is refused naming the file") {
  const test::FamilyCopy family("rmsnorm", "spec-range");
  const auto& dir = family.dir;
  auto with_eps = [&](const nlohmann::json& eps) {
    nlohmann::json spec = family.original_spec;
    for (auto& a : spec["args"])
      if (a["name"] == "eps") a = eps;
    family.write_spec(spec);
  };
  with_eps({{"name", "eps"}, {"type", "float"}, {"value", 1e-6}});
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("needs \"range\": [lo, hi], the values engines pass for 'eps'"), InputError);
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("spec.json"), InputError);
  with_eps({{"name", "eps"}, {"type", "float"}, {"value", 1e-6}, {"range", {1e-4, 1e-7}}});
  CHECK_THROWS_WITH_AS(load_op_spec(dir), doctest::Contains("range must be [lo, hi] with lo <= hi"), InputError);
  with_eps({{"name", "eps"}, {"type", "float"}, {"value", 1e-6}, {"range", {1e-7, 1e-4}}});
  CHECK(load_op_spec(dir).find_arg("eps")->range_hi == doctest::Approx(1e-4));
}

TEST_CASE("poison: NaN by default, finite garbage that differs by seed otherwise") {
  HostTensor nan_poison(DType::bf16, 64), a(DType::bf16, 64), b(DType::bf16, 64), ints(DType::i32, 8);
  poison(nan_poison);
  poison(a, 7);
  poison(b, 8);
  poison(ints, 9);
  int differ = 0;
  for (std::size_t i = 0; i < 64; ++i) {
    CHECK(std::isnan(nan_poison.at(i)));
    CHECK(std::isfinite(a.at(i)));
    CHECK(std::isfinite(b.at(i)));
    differ += a.at(i) != b.at(i);
  }
  CHECK(differ > 60);
  CHECK(ints.at(0) != ints.at(1));
}
