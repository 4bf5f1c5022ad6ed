// attention_decode tuned on emu for a small model with two dynamic dims (tokens, and the context
// as MAXP pages) and exported: one entry per (batch, MAXP) bucket pair, found by the C++ and
// Python loaders for pairs inside every bucket, with the workspace's size and its zeroed counters
// evaluated at the found shape.
#include <doctest/doctest.h>

#include <set>

#include "hone/kernel_cache.hpp"
#include "support/job_cache.hpp"

namespace {

const std::string kModel = std::string(HONE_TEST_DATA_DIR) + "/shapes/attention_small.json";

std::vector<std::int64_t> inside(std::int64_t lo, std::int64_t hi) {
  std::set<std::int64_t> v{lo, (lo + hi) / 2, hi};
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("attention_decode: an entry per (batch, MAXP) bucket pair, found by the C++ and Python loaders inside every bucket") {
  hone::test::JobCache job("attention", kModel);
  hone::KernelCacheOptions options;
  options.arch = "sm_90";
  options.allow_other_devices = true;
  hone::KernelCache cache(job.cache.string(), options);

  std::set<std::pair<std::int64_t, std::int64_t>> his;
  int pairs = 0;
  for (const auto& e : cache.manifest().entries) {
    REQUIRE(e.op == "attention_decode");
    REQUIRE(e.buckets.size() == 2);
    const auto batch = e.buckets.at("batch"), maxp = e.buckets.at("MAXP");
    his.insert({batch.hi, maxp.hi});
    for (auto b : inside(batch.lo, batch.hi))
      for (auto p : inside(maxp.lo, maxp.hi)) {
        CAPTURE(b);
        CAPTURE(p);
        auto k = cache.find("attention_decode", {{"batch", b}, {"HQ", 4}, {"HKV", 2}, {"D", 32}, {"PAGE", 4}, {"MAXP", p},
                                                 {"q_stride", 256}, {"page_stride", 256}});
        REQUIRE_MESSAGE(k, k.miss_reason());
        CHECK(k.entry().index == e.index);
        REQUIRE(k.scratch().size() == 1);
        CHECK(k.scratch()[0].name == "workspace");
        CHECK(k.scratch()[0].bytes == 4 * (b * 2 + b * 4 * 64 * (32 + 2)));
        CHECK(k.scratch()[0].zeroed_bytes == 4 * b * 2);
        ++pairs;
      }
  }
  // tokens buckets 2, 4; context 16, 32 tokens in pages of 4: MAXP 1..4 and 5..8.
  CHECK(his == std::set<std::pair<std::int64_t, std::int64_t>>{{2, 4}, {2, 8}, {4, 4}, {4, 8}});
  CHECK(pairs >= 4 * 6);
  auto k = cache.find("attention_decode", {{"batch", 3}, {"HQ", 4}, {"HKV", 2}, {"D", 32}, {"PAGE", 4}, {"MAXP", 9},
                                           {"q_stride", 256}, {"page_stride", 256}});
  CHECK_FALSE(k);
  CHECK_MESSAGE(k.miss_reason().find("MAXP=9 is outside") != std::string::npos, k.miss_reason());

  const auto py = job.run_python("test_attention.py");
  CHECK_MESSAGE(py.code == 0, py.output);
  CHECK_MESSAGE(py.output.find("Ran 1 test") != std::string::npos, py.output);
  MESSAGE(py.output);
}
