#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "tuner/replay_benchmark.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

// The recorded spaces live beside the repository (../shared/data/tuning-spaces), never in it.
fs::path space_file(const std::string& name) {
  const fs::path d = fs::path(HONE_SOURCE_DIR) / ".." / "shared" / "data" / "tuning-spaces";
  REQUIRE_MESSAGE(fs::is_regular_file(d / name), "the recorded tuning space " << name << " is missing: expected it in " << d.string()
                                                                          << " (../shared/data/tuning-spaces from the repository root)");
  return d / name;
}

const ReplayCache& convolution() {
  static const ReplayCache c = read_replay_cache(space_file("convolution_A100.json.gz"));
  return c;
}

}  // namespace

TEST_CASE("replay: the median and the nearest-rank 90th percentile") {
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(i);
  CHECK(quantile_of(v, 0.9) == 18);
  CHECK(quantile_of({5}, 0.9) == 5);
  CHECK(std::isinf(median_of({1, INFINITY, INFINITY})));
}

TEST_CASE("replay: a search's score is the best valid time it found over the cache's optimum, failures counted") {
  const auto& c = convolution();
  auto space = replay_search_space(c);
  REQUIRE(space->size() == c.entries.size());
  // Exhaustive over the whole file finds the optimum itself.
  ReplayRun all = replay_search(c, space, "exhaustive", SearchLimits::of(c.entries.size()), 1);
  CHECK(all.ratio == 1.0);
  CHECK(all.evaluated.size() == c.entries.size());
  // The first ten of the file: their best over the optimum, failures among them counted.
  ReplayRun ten = replay_search(c, space, "exhaustive", SearchLimits::of(10), 1);
  double best = INFINITY;
  for (std::size_t i = 0; i < 10; ++i)
    if (c.entries[i].time_ms) best = std::min(best, *c.entries[i].time_ms);
  CHECK(ten.evaluated.size() == 10);
  CHECK(ten.ratio == doctest::Approx(best / *c.entries[*c.best()].time_ms));
  CHECK(ten.ratio > 1.5);
}

TEST_CASE("replay: a search keeps the points it evaluated, in order, and its score is the best of them") {
  // What a stalled search tried is what says why it stalled: the trace of `hone replay --trace`.
  const auto& c = convolution();
  const ReplayRun r = replay_search(c, replay_search_space(c), "model", SearchLimits::of(40), 3);
  REQUIRE(r.evaluated.size() == 40);
  CHECK(std::set<std::size_t>(r.evaluated.begin(), r.evaluated.end()).size() == 40);
  double best = INFINITY;
  for (auto p : r.evaluated)
    if (c.entries.at(p).time_ms) best = std::min(best, *c.entries[p].time_ms);
  CHECK(r.ratio == best / *c.entries[*c.best()].time_ms);
  // The same seed proposes the same points.
  CHECK(replay_search(c, replay_search_space(c), "model", SearchLimits::of(40), 3).evaluated == r.evaluated);
}

TEST_CASE("replay: a time budget is spent in the recorded tuning time") {
  const auto& c = convolution();
  double first_three = 0;
  for (std::size_t i = 0; i < 3; ++i) first_three += c.entries[i].cost_ms;
  SearchLimits limits = SearchLimits::of(100);
  limits.seconds = first_three / 1000 * 0.999;
  CHECK(replay_search(c, replay_search_space(c), "exhaustive", limits, 1).evaluated.size() == 3);
}

TEST_CASE("replay: the model-guided search beats random search at budget 100 on a recorded space") {
  // Median over 20 seeds; one space is enough for the claim, the benchmark covers all three.
  ReplayOptions o;
  o.strategies = {"model", "random"};
  o.budgets = {100};
  o.seeds = 20;
  const auto scores = replay_benchmark(convolution(), o);
  REQUIRE(scores.size() == 2);
  CHECK(scores[0].strategy == "model");
  CHECK(scores[1].strategy == "random");
  MESSAGE("median best/optimum at 100: model " << scores[0].median_ratio << ", random " << scores[1].median_ratio);
  CHECK(scores[0].median_ratio < scores[1].median_ratio);
  CHECK(scores[0].median_ratio >= 1.0);
  CHECK(scores[0].mean_evaluations() == 100);
}

TEST_CASE("replay: the scores do not depend on the thread count, and a plateau ends searches early") {
  ReplayOptions o;
  o.strategies = {"genetic"};
  o.budgets = {60};
  o.seeds = 6;
  o.threads = 1;
  const auto one = replay_benchmark(convolution(), o);
  o.threads = 3;
  const auto three = replay_benchmark(convolution(), o);
  CHECK(one[0].median_ratio == three[0].median_ratio);
  CHECK(one[0].p90_ratio == three[0].p90_ratio);
  CHECK(one[0].ratios.size() == 6);
  CHECK(one[0].ratios == three[0].ratios);
  CHECK(one[0].evaluated.size() == 6);
  CHECK(one[0].evaluated == three[0].evaluated);
  o.plateau = 5;
  CHECK(replay_benchmark(convolution(), o)[0].mean_evaluations() < 60);
}
