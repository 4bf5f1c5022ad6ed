#include <doctest/doctest.h>

#include <set>

#include <fmt/format.h>

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

TEST_CASE("hidden tests: every dynamic dim inside its bucket, all at once, and every adversarial index mode at the visible shape") {
  const OpSpec op = load_op_spec(std::filesystem::path(HONE_TEST_DATA_DIR) / "families" / "paged_sum");
  Rng rng(7);
  const Bindings shape{{"batch", 8}, {"ctx", 64}, {"PAGE", 4}, {"D", 8}};
  auto tests = hidden_tests(op, shape, {{"batch", {5, 8}}, {"ctx", {17, 64}}}, rng);
  int batch_only = 0, ctx_only = 0, both = 0;
  std::vector<std::string> modes;
  for (const auto& t : tests) {
    const bool b = t.shape.at("batch") != 8, c = t.shape.at("ctx") != 64;
    CHECK((t.shape.at("batch") >= 5 && t.shape.at("batch") <= 8 && t.shape.at("ctx") >= 17 && t.shape.at("ctx") <= 64));
    if (!t.modes.empty()) {
      CHECK(t.shape == shape);
      CHECK(t.modes.size() == 1);
      modes.push_back(t.label);
      continue;
    }
    batch_only += b && !c;
    ctx_only += c && !b;
    both += b && c;
  }
  CHECK(batch_only == 3);
  CHECK(ctx_only == 3);
  CHECK(both == 1);
  CHECK(modes == std::vector<std::string>{"batch=8,ctx=64, seq_lens one_long", "batch=8,ctx=64, seq_lens all_padded_but_one",
                                          "batch=8,ctx=64, seq_lens length_one", "batch=8,ctx=64, seq_lens page_edges",
                                          "batch=8,ctx=64, seq_lens full", "batch=8,ctx=64, block_table reverse"});
}

TEST_CASE("default buckets: powers of two") {
  CHECK(default_bucket_for(1).lo == 1);
  CHECK(default_bucket_for(7).lo == 5);
  CHECK(default_bucket_for(7).hi == 8);
  CHECK(default_bucket_for(8).hi == 8);
  CHECK(default_bucket_for(100).lo == 65);
  CHECK(default_bucket_for(100).hi == 128);
}

TEST_CASE("hidden tests: each draws its own value of every runtime scalar from the spec's range, and names it") {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  const ArgSpec& eps = *op.find_arg("eps");
  Rng rng(11);
  auto tests = hidden_tests(op, {{"tokens", 64}, {"hidden", 256}}, {{"tokens", {33, 64}}}, rng);
  std::set<double> values;
  for (const auto& t : tests) {
    REQUIRE(t.scalars.count("eps"));
    const double v = t.scalars.at("eps");
    CHECK(v >= eps.range_lo);
    CHECK(v <= eps.range_hi);
    CHECK_MESSAGE(t.label.find(", eps=") != std::string::npos, t.label);
    // Named once, with the value the test runs with.
    CHECK_MESSAGE(t.label.find(", eps=") == t.label.rfind(", eps="), t.label);
    CHECK_MESSAGE(t.label.find(fmt::format(", eps={:.3g}", v)) != std::string::npos, t.label);
    values.insert(v);
  }
  CHECK(values.size() == tests.size());
  // Log-uniform over four decades: the draws spread over them, not bunched at the top.
  Rng many(12);
  int below_1e5 = 0;
  for (int i = 0; i < 1000; ++i) below_1e5 += draw_scalar(eps, many) < 1e-5;
  CHECK(below_1e5 > 550);
  CHECK(below_1e5 < 780);
}

TEST_CASE("hidden tests: a scalar the test's input case sets is the value it runs with and the one its label names") {
  OpSpec op = load_op(templates_root(), "fused_add_rmsnorm");
  Rng rng(3);
  const auto tests = hidden_tests(op, {{"tokens", 4}, {"hidden", 256}}, {{"tokens", {3, 4}}}, rng);
  int cases_setting_it = 0;
  for (const auto& t : tests) {
    if (!t.input_case || !t.input_case->scalars.count("w_offset")) continue;
    ++cases_setting_it;
    const double set = t.input_case->scalars.at("w_offset");
    CHECK(t.scalars.at("w_offset") == set);
    CHECK_MESSAGE(t.label.find(fmt::format(", w_offset={:.3g}", set)) != std::string::npos, t.label);
  }
  CHECK(cases_setting_it > 0);
}
