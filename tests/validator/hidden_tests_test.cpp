#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "validator/hidden_tests.hpp"

using namespace hone;

TEST_CASE("hidden tests: sizes inside the bucket other than the visible one, then the adversarial cases") {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  Rng rng(3);
  auto tests = hidden_tests(op, {{"tokens", 64}, {"hidden", 256}}, {{"tokens", {33, 64}}}, rng);
  std::vector<std::int64_t> sizes;
  for (const auto& t : tests) {
    CHECK(t.shape.at("hidden") == 256);
    CHECK(t.shape.at("tokens") >= 33);
    CHECK(t.shape.at("tokens") <= 64);
    if (!t.input_case) sizes.push_back(t.shape.at("tokens"));
  }
  CHECK(std::find(sizes.begin(), sizes.end(), 33) != sizes.end());
  CHECK(std::find(sizes.begin(), sizes.end(), 63) != sizes.end());
  CHECK(std::find(sizes.begin(), sizes.end(), 64) == sizes.end());  // the visible size is not hidden
  CHECK(sizes.size() == 3);
  const std::int64_t between = sizes.back();
  CHECK((between & (between - 1)) != 0);
  REQUIRE(tests.size() == sizes.size() + op.hidden_cases.size());
  CHECK(tests.back().input_case != nullptr);
  CHECK(tests.back().label.find(", case ") != std::string::npos);
}

TEST_CASE("hidden tests: a single-value bucket has only the adversarial cases, with their own seeds") {
  OpSpec op = load_op(templates_root(), "gemv");
  Rng rng(5);
  auto tests = hidden_tests(op, {{"M", 1}, {"N", 64}, {"K", 256}}, {{"M", {1, 1}}}, rng);
  REQUIRE(tests.size() == op.hidden_cases.size());
  CHECK(tests[0].seed != tests[1].seed);
  CHECK(tests[0].shape.at("M") == 1);
}

TEST_CASE("default buckets: powers of two") {
  CHECK(default_bucket_for(1).lo == 1);
  CHECK(default_bucket_for(7).lo == 5);
  CHECK(default_bucket_for(7).hi == 8);
  CHECK(default_bucket_for(8).hi == 8);
  CHECK(default_bucket_for(100).lo == 65);
  CHECK(default_bucket_for(100).hi == 128);
}
