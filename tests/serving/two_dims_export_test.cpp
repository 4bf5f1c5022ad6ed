// A model with two dynamic dims (tokens and context) tuned on emu and exported: the paged test
// family gets one task per (tokens, context) bucket pair, the ops that read only tokens one per
// tokens bucket; the C++ and Python loaders find the right entry for (batch, context) pairs inside
// every bucket, and give a scratch argument's size.
#include <doctest/doctest.h>

#include <set>

#include "core/json_file.hpp"
#include "hone/kernel_cache.hpp"
#include "support/family_home.hpp"
#include "support/job_cache.hpp"

namespace {

const std::string kModel = std::string(HONE_TEST_DATA_DIR) + "/shapes/two_dims.json";

std::vector<std::int64_t> inside(std::int64_t lo, std::int64_t hi) {
  std::set<std::int64_t> v{lo, (lo + hi) / 2, hi};
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("two dynamic dims: tasks per bucket pair only where an op reads both, found by the C++ loader in every pair") {
  hone::test::FamilyHome home("two-dims");
  hone::test::JobCache job("two-dims", kModel, home.env());
  hone::KernelCacheOptions options;
  options.arch = "sm_90";
  options.allow_other_devices = true;
  hone::KernelCache cache(job.cache.string(), options);

  std::map<std::string, int> per_op;
  for (const auto& e : cache.manifest().entries) ++per_op[e.op];
  CHECK(per_op == std::map<std::string, int>{{"paged_sum", 4}, {"rmsnorm", 2}, {"split_sum", 2}});

  int pairs = 0;
  for (const auto& e : cache.manifest().entries) {
    if (e.op != "paged_sum") continue;
    REQUIRE(e.buckets.size() == 2);
    const auto batch = e.buckets.at("batch"), ctx = e.buckets.at("ctx");
    for (auto b : inside(batch.lo, batch.hi))
      for (auto c : inside(ctx.lo, ctx.hi)) {
        CAPTURE(b);
        CAPTURE(c);
        auto k = cache.find("paged_sum", {{"batch", b}, {"ctx", c}, {"PAGE", 4}, {"D", 8}});
        REQUIRE_MESSAGE(k, k.miss_reason());
        CHECK(k.entry().index == e.index);
        ++pairs;
      }
  }
  CHECK(pairs >= 4 * 6);
  auto k = cache.find("paged_sum", {{"batch", 3}, {"ctx", 49}, {"PAGE", 4}, {"D", 8}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("ctx=49 is outside") != std::string::npos, k.miss_reason());
  // The launch is checked against the shape it was found for: MAXP follows ctx.
  k = cache.find("paged_sum", {{"batch", 3}, {"ctx", 20}, {"PAGE", 4}, {"D", 8}});
  REQUIRE(k);
  CHECK_NOTHROW(k.pack({hone::kernel_cache::arg_value(static_cast<float*>(nullptr)), hone::kernel_cache::arg_value(static_cast<const float*>(nullptr)),
                        hone::kernel_cache::arg_value(static_cast<const int*>(nullptr)), hone::kernel_cache::arg_value(static_cast<const int*>(nullptr)),
                        hone::kernel_cache::arg_value(3), hone::kernel_cache::arg_value(4), hone::kernel_cache::arg_value(5),
                        hone::kernel_cache::arg_value(8)}));

  // Scratch: the entry records what to allocate; the loader evaluates it at the shape.
  auto s = cache.find("split_sum", {{"rows", 3}, {"N", 256}});
  REQUIRE_MESSAGE(s, s.miss_reason());
  REQUIRE(s.scratch().size() == 2);
  CHECK(s.scratch()[0].name == "partial");
  CHECK(s.scratch()[0].bytes == 4 * 3 * 8);
  CHECK(s.scratch()[0].zeroed_bytes == 0);
  CHECK(s.scratch()[1].name == "count");
  CHECK(s.scratch()[1].bytes == 4 * 3);
  CHECK(s.scratch()[1].zeroed_bytes == 4 * 3);
  const auto manifest = hone::read_json_file(job.manifest());
  for (const auto& e : manifest["entries"])
    if (e["op"] == "split_sum") CHECK(e["args"][2]["bytes"] == "4 * (rows) * (8)");

  // The Python module over the C ABI, on the same cache.
  const auto py = job.run_python("test_two_dims.py");
  CHECK_MESSAGE(py.code == 0, py.output);
  CHECK_MESSAGE(py.output.find("Ran 2 tests") != std::string::npos, py.output);
}
