// A steady-state genetic algorithm: the population is the best points measured so far; each new
// point is a child of two parents picked by tournament, by uniform crossover of their parameter
// values and a mutation of one step in a parameter's value order. Steady-state rather than
// generational so that a caller asking for a batch of points before their times are in gets a
// batch of children, with no generation to wait for.
#include <algorithm>
#include <cmath>

#include "tuner/strategy_grid.hpp"
#include "tuner/strategy_kinds.hpp"
#include "tuner/strategy_proposals.hpp"

namespace hone {

namespace {

constexpr std::size_t kPopulation = 20, kTournament = 3, kTries = 32;

class GeneticStrategy : public SearchStrategy {
 public:
  GeneticStrategy(SpaceRef space, std::uint64_t seed)
      : space_(std::move(space)), grid_(*space_), proposals_(space_->size(), seed, space_->strata), rng_(seed ^ 0x9e7e71c) {}
  std::string name() const override { return "genetic"; }

  std::optional<std::size_t> next(const std::vector<Observation>& history) override {
    for (; seen_ < history.size(); ++seen_) observe(history[seen_]);
    if (proposals_.exhausted()) return std::nullopt;
    // The first population is random.
    if (proposals_.count() < kPopulation || population_.size() < 2) return proposals_.take(*proposals_.random_free());
    for (std::size_t i = 0; i < kTries; ++i)
      if (auto c = child(tournament(), tournament()); c && !proposals_.taken(*c)) return proposals_.take(*c);
    // Children keep landing on tried or missing points: widen around the best one.
    for (bool adjacent : {true, false})
      for (auto n : grid_.neighbours(population_.front().second, adjacent))
        if (!proposals_.taken(n)) return proposals_.take(n);
    return proposals_.take(*proposals_.random_free());
  }

 private:
  void observe(const Observation& o) {
    if (!o.time_ms) return;
    const std::pair<double, std::size_t> member{*o.time_ms, o.point};
    population_.insert(std::upper_bound(population_.begin(), population_.end(), member), member);
    if (population_.size() > kPopulation) population_.pop_back();
  }

  std::size_t tournament() {
    std::size_t best = population_.size();
    for (std::size_t i = 0; i < kTournament; ++i) best = std::min<std::size_t>(best, rng_.next() % population_.size());
    return population_[best].second;  // sorted by time: the lowest index is the fittest
  }

  std::optional<std::size_t> child(std::size_t a, std::size_t b) {
    StrategyGrid::Ranks r = grid_.ranks(a);
    const auto& rb = grid_.ranks(b);
    for (std::size_t p = 0; p < r.size(); ++p)
      if (rng_.next() & 1) r[p] = rb[p];
    if (r.empty()) return grid_.find(r);
    // Mutation: one parameter moves one step, in either direction.
    const std::size_t p = rng_.next() % r.size();
    if (grid_.levels(p) > 1) {
      if (r[p] == 0 || (r[p] + 1 < grid_.levels(p) && (rng_.next() & 1)))
        ++r[p];
      else
        --r[p];
    }
    return grid_.find(r);
  }

  SpaceRef space_;
  StrategyGrid grid_;
  StrategyProposals proposals_;
  Rng rng_;
  std::size_t seen_ = 0;
  std::vector<std::pair<double, std::size_t>> population_;  // (time, point), best first
};

}  // namespace

std::unique_ptr<SearchStrategy> genetic_strategy(SpaceRef space, std::uint64_t seed) {
  return std::make_unique<GeneticStrategy>(std::move(space), seed);
}

}  // namespace hone
