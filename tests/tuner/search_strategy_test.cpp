#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/input_error.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/strategy_grid.hpp"

using namespace hone;

namespace {

// A 10 x 10 x 4 grid with holes (as restrictions leave them), failures along a = 0, and one clear
// optimum at a = 7, b = 2, c = 4 in a smooth bowl.
struct Bowl {
  std::shared_ptr<SearchSpace> space = std::make_shared<SearchSpace>();
  std::vector<std::optional<double>> time;
  std::size_t optimum = 0;

  Bowl() {
    space->params = {"a", "b", "c"};
    for (int a = 0; a < 10; ++a)
      for (int b = 0; b < 10; ++b)
        for (int c : {1, 2, 4, 8}) {
          if ((a + b) % 7 == 3) continue;  // a hole
          space->points.push_back({double(a), double(b), double(c)});
          if (a == 0)
            time.push_back(std::nullopt);
          else
            time.push_back(1 + 0.3 * (a - 7) * (a - 7) + 0.2 * (b - 2) * (b - 2) + std::abs(std::log2(c) - 2));
          if (a == 7 && b == 2 && c == 4) optimum = space->points.size() - 1;
        }
  }
};

// Runs a strategy to its end with the bowl's times as answers; asks for `batch` points at a time
// before answering them, as the tuning job does while it compiles a batch.
std::vector<std::size_t> run(SearchStrategy& s, const Bowl& bowl, std::size_t batch = 1) {
  std::vector<Observation> history;
  std::vector<std::size_t> order;
  for (;;) {
    std::vector<std::size_t> asked;
    while (asked.size() < batch)
      if (auto p = s.next(history)) asked.push_back(*p);
      else break;
    if (asked.empty()) return order;
    for (auto p : asked) {
      REQUIRE(p < bowl.space->size());
      history.push_back({p, bowl.time[p]});
      order.push_back(p);
    }
  }
}

std::vector<std::size_t> drain(const std::string& name, const Bowl& bowl, std::size_t budget, std::uint64_t seed, std::size_t batch = 1) {
  auto s = make_strategy(name, bowl.space, SearchLimits::of(budget), seed);
  return run(*s, bowl, batch);
}

const char* const kSearching[] = {"random", "annealing", "genetic", "model"};

}  // namespace

TEST_CASE("strategy: exhaustive visits every point once, in order") {
  Bowl bowl;
  auto order = drain("exhaustive", bowl, 10000, 1);
  REQUIRE(order.size() == bowl.space->size());
  for (std::size_t i = 0; i < order.size(); ++i) CHECK(order[i] == i);
}

TEST_CASE("strategy: each is deterministic for a seed, and another seed searches differently") {
  Bowl bowl;
  for (const char* name : kSearching) {
    CAPTURE(name);
    auto a = drain(name, bowl, 80, 7), b = drain(name, bowl, 80, 7), c = drain(name, bowl, 80, 8);
    CHECK(a.size() == 80);
    CHECK(a == b);
    CHECK(a != c);
  }
}

TEST_CASE("strategy: none proposes a point twice, asked one at a time or in batches, and each covers the space") {
  Bowl bowl;
  for (const char* name : {"exhaustive", "random", "annealing", "genetic", "model", "auto"})
    for (std::size_t batch : {1, 6}) {
      CAPTURE(name);
      CAPTURE(batch);
      // A budget past the space's size: the strategy itself must end when every point is tried.
      auto order = drain(name, bowl, 100000, 3, batch);
      CHECK(std::set<std::size_t>(order.begin(), order.end()).size() == order.size());
      CHECK(order.size() == bowl.space->size());
    }
}

TEST_CASE("strategy: annealing, genetic and model find a clear optimum in a fifth of the space, random does not") {
  Bowl bowl;
  const std::size_t budget = bowl.space->size() / 5;
  auto found = [&](const std::string& name) {
    int hits = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      auto order = drain(name, bowl, budget, seed);
      hits += std::find(order.begin(), order.end(), bowl.optimum) != order.end();
    }
    return hits;
  };
  for (const char* name : {"annealing", "genetic", "model"}) {
    CAPTURE(name);
    CHECK(found(name) >= 8);
  }
  CHECK(found("random") <= 5);  // about 2 in 10 expected: the bar above is not reached by luck
}

TEST_CASE("strategy: auto is exhaustive when the space fits the budget, else model-guided") {
  Bowl bowl;
  const std::size_t n = bowl.space->size();
  CHECK(make_strategy("auto", bowl.space, SearchLimits::of(n), 1)->name() == "exhaustive");
  CHECK(make_strategy("auto", bowl.space, SearchLimits::of(n - 1), 1)->name() == "model");
  for (const auto& name : strategy_names()) CHECK_NOTHROW(make_strategy(name, bowl.space, {}, 1));
  CHECK_THROWS_AS(make_strategy("tabu", bowl.space, {}, 1), InputError);
}

TEST_CASE("strategy: the search stops at its evaluation budget, its time limit and on a plateau") {
  Bowl bowl;
  CHECK(drain("random", bowl, 25, 1).size() == 25);

  double now = 0;
  SearchLimits timed = SearchLimits::of(1000);
  timed.seconds = 10.0;
  timed.clock = [&now] { return now; };
  auto s = make_strategy("random", bowl.space, timed, 1);
  std::size_t asked = 0;
  while (s->next({})) {
    ++asked;
    now += 1;  // each evaluation takes a second
  }
  CHECK(asked == 10);

  // Exhaustive order from a = 0 (all failures) on: no valid time for 40 evaluations is a plateau.
  SearchLimits plateau = SearchLimits::of(1000);
  plateau.plateau = 30;
  auto order = run(*make_strategy("exhaustive", bowl.space, plateau, 1), bowl);
  CHECK(order.size() == 30);
  // Times that keep improving never plateau.
  plateau = SearchLimits::of(50);
  plateau.plateau = 5;
  auto p = make_strategy("random", bowl.space, plateau, 1);
  std::vector<Observation> improving;
  std::size_t n = 0;
  while (auto q = p->next(improving)) {
    improving.push_back({*q, 100.0 - double(n++)});
  }
  CHECK(n == 50);
}

TEST_CASE("strategy: the model uses static features when the space has them") {
  // Two spaces with the same parameters, told apart only by a static feature that decides the
  // time: the model must read it to find the optimum early.
  Bowl bowl;
  auto space = std::make_shared<SearchSpace>(*bowl.space);
  space->feature_names = {"registers"};
  std::vector<std::optional<double>> times;
  for (std::size_t i = 0; i < space->size(); ++i) {
    const double regs = double((i * 37) % 97);  // unrelated to the parameters
    space->features.push_back({regs});
    times.push_back(1 + regs);
  }
  int early = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    auto s = make_strategy("model", space, SearchLimits::of(40), seed);
    std::vector<Observation> history;
    double best = 1e9;
    while (auto p = s->next(history)) {
      history.push_back({*p, times[*p]});
      best = std::min(best, *times[*p]);
    }
    early += best <= 2;  // one of the few points with 0 or 1 registers
  }
  CHECK(early >= 4);
  CHECK_THROWS_AS(
      [&] {
        auto bad = std::make_shared<SearchSpace>(*space);
        bad->features.pop_back();
        make_strategy("model", bad, {}, 1);
      }(),
      InputError);
}

TEST_CASE("strategy: in the last 30% of its budget the model proposes nearer its best point than before (no random points, the mean decides)") {
  // In the bowl the fastest predicted points lie around the best one found. Before the endgame a
  // share of the proposals is random and expected improvement pays for what a point would teach,
  // so more land far from the best; without the endgame the last 30% land far as often (57 of 180
  // here, against 31 with it).
  Bowl bowl;
  const std::size_t budget = 60, endgame = 42, middle = 20;
  const auto far_from_best = [&](const std::vector<std::size_t>& order, std::size_t from, std::size_t to) {
    std::size_t far = 0, best = order[0];
    for (std::size_t i = 0; i < to; ++i) {
      const auto& p = bowl.space->points[order[i]];
      const auto& b = bowl.space->points[best];
      if (i >= from && std::abs(p[0] - b[0]) + std::abs(p[1] - b[1]) > 4) ++far;
      if (bowl.time[order[i]] && (!bowl.time[best] || *bowl.time[order[i]] < *bowl.time[best])) best = order[i];
    }
    return far;
  };
  std::size_t far_before = 0, far_after = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const auto order = drain("model", bowl, budget, seed);
    REQUIRE(order.size() == budget);
    far_before += far_from_best(order, middle, endgame);
    far_after += far_from_best(order, endgame, budget);
  }
  CAPTURE(far_before);
  CAPTURE(far_after);
  // As rates: far_after / (budget - endgame) below far_before / (endgame - middle).
  CHECK(far_after * (endgame - middle) < far_before * (budget - endgame));
}

TEST_CASE("search strategies: the first draws take one point of each stratum (a template's variant), however small") {
  auto space = std::make_shared<SearchSpace>();
  space->params = {"variant", "a"};
  for (int a = 0; a < 200; ++a) {  // stratum 0 holds 197 points, strata 1, 2 and 3 one each
    const std::size_t stratum = a < 197 ? 0 : static_cast<std::size_t>(a - 196);
    space->points.push_back({double(stratum), double(a)});
    space->strata.push_back(stratum);
  }
  for (const std::string name : {"auto", "model", "annealing", "genetic"})
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      CAPTURE(name);
      CAPTURE(seed);
      auto s = make_strategy(name, space, SearchLimits::of(20), seed);
      std::set<std::size_t> strata;
      for (int i = 0; i < 4; ++i) {
        auto p = s->next({});
        REQUIRE(p);
        strata.insert(space->strata[*p]);
      }
      CHECK(strata.size() == 4);
    }
}

TEST_CASE("search strategies: without strata the draws are as before (a space's strata only reorder the first)") {
  const Bowl bowl;
  auto stratified = std::make_shared<SearchSpace>(*bowl.space);
  stratified->strata.assign(stratified->size(), 0);  // one stratum: its first point is the permutation's first
  for (const std::string name : {"model", "annealing", "genetic"}) {
    CAPTURE(name);
    auto plain = make_strategy(name, bowl.space, SearchLimits::of(30), 3);
    auto one = make_strategy(name, stratified, SearchLimits::of(30), 3);
    CHECK(run(*plain, bowl) == run(*one, bowl));
  }
}

TEST_CASE("strategy: the model's first points are spread over the space, farther apart than random draws") {
  // Random first points clump: a search whose first fit saw one corner only was among the worst
  // at small budgets. Each of the model's first points is the farthest of a few random candidates
  // from those before it.
  const Bowl bowl;
  const StrategyGrid grid(*bowl.space);
  const std::size_t first = 8;  // the model's random share at a budget of 40
  const auto nearest_pair = [&](const std::vector<std::size_t>& order) {
    double nearest = 1e9;
    for (std::size_t i = 0; i < first; ++i)
      for (std::size_t j = 0; j < i; ++j) nearest = std::min(nearest, grid.distance(order[i], order[j]));
    return nearest;
  };
  double model = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    model += nearest_pair(drain("model", bowl, 40, seed));
    random += nearest_pair(drain("random", bowl, 40, seed));
  }
  CAPTURE(model / 20);
  CAPTURE(random / 20);
  CHECK(model > 2 * random);
}

TEST_CASE("strategy: where the fits agree everywhere, the model goes where nothing near was measured, filling holes better than random draws") {
  // Every point equally fast: the fits predict one time everywhere and agree, so their spread says
  // nothing. Only the distance from the nearest point measured tells an unseen region from a mined
  // one; without it the model's proposals were the tie-break's random order and its neighbours of
  // the best point, and left larger holes than random draws (5.97 against 5.52 summed over these
  // seeds).
  auto space = std::make_shared<SearchSpace>();
  space->params = {"a", "b", "c"};
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      for (int c = 0; c < 4; ++c) space->points.push_back({double(a), double(b), double(c)});
  const StrategyGrid grid(*space);
  const std::size_t budget = 80, endgame = 56;
  // The largest distance from a point of the space to the nearest of the first `endgame` proposals.
  const auto largest_hole = [&](const std::string& name, std::uint64_t seed) {
    auto s = make_strategy(name, space, SearchLimits::of(budget), seed);
    std::vector<Observation> history;
    while (history.size() < endgame) {
      auto p = s->next(history);
      REQUIRE(p);
      history.push_back({*p, 1.0});
    }
    double hole = 0;
    for (std::size_t x = 0; x < space->size(); ++x) {
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& o : history) nearest = std::min(nearest, grid.distance(x, o.point));
      hole = std::max(hole, nearest);
    }
    return hole;
  };
  double model = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    model += largest_hole("model", seed);
    random += largest_hole("random", seed);
  }
  CAPTURE(model);
  CAPTURE(random);
  CHECK(model < 0.8 * random);
}
