// Simulated annealing over the grid: the next point is an untried neighbour of the current one
// (one parameter one step away in its value order, else one parameter changed to any value); a
// worse time is accepted with probability exp(-(log t - log t_current) / T). Times are compared
// in log space so that the temperature means the same on a 0.1 ms kernel and a 100 ms one. T
// cools geometrically over the evaluation budget, from accepting 25% worse with p ~ 0.5 to greedy.
#include <cmath>
#include <limits>

#include "tuner/strategy_grid.hpp"
#include "tuner/strategy_kinds.hpp"
#include "tuner/strategy_proposals.hpp"

namespace hone {

namespace {

constexpr double kStartTemperature = 0.3, kEndTemperature = 0.003;

class AnnealingStrategy : public SearchStrategy {
 public:
  AnnealingStrategy(SpaceRef space, std::size_t schedule, std::uint64_t seed)
      : space_(std::move(space)), grid_(*space_), proposals_(space_->size(), seed, space_->strata), rng_(seed ^ 0xa77ea1), schedule_(std::max<std::size_t>(schedule, 1)) {}
  std::string name() const override { return "annealing"; }

  std::optional<std::size_t> next(const std::vector<Observation>& history) override {
    for (; seen_ < history.size(); ++seen_) observe(history[seen_]);
    if (proposals_.exhausted()) return std::nullopt;
    if (current_)
      if (auto n = free_neighbour(*current_)) return proposals_.take(*n);
    // Every neighbour tried: go on from the best point, else restart at a random one.
    if (best_ && best_ != current_)
      if (auto n = free_neighbour(*best_)) {
        current_ = best_;
        current_cost_ = best_cost_;
        return proposals_.take(*n);
      }
    current_.reset();  // the next valid time starts the walk again
    return proposals_.take(*proposals_.random_free());
  }

 private:
  void observe(const Observation& o) {
    const double cost = o.time_ms && *o.time_ms > 0 ? std::log(*o.time_ms) : std::numeric_limits<double>::infinity();
    const double t = kStartTemperature * std::pow(kEndTemperature / kStartTemperature, std::min(1.0, double(seen_) / schedule_));
    if (!std::isfinite(cost)) return;  // a failure is never a place to stand
    if (!best_ || cost < best_cost_) {
      best_ = o.point;
      best_cost_ = cost;
    }
    if (!current_ || cost <= current_cost_ || rng_.uniform() < std::exp(-(cost - current_cost_) / t)) {
      current_ = o.point;
      current_cost_ = cost;
    }
  }

  std::optional<std::size_t> free_neighbour(std::size_t point) {
    for (bool adjacent : {true, false}) {
      std::vector<std::size_t> free;
      for (auto n : grid_.neighbours(point, adjacent))
        if (!proposals_.taken(n)) free.push_back(n);
      if (!free.empty()) return free[rng_.next() % free.size()];
    }
    return std::nullopt;
  }

  SpaceRef space_;
  StrategyGrid grid_;
  StrategyProposals proposals_;
  Rng rng_;
  std::size_t schedule_;
  std::size_t seen_ = 0;
  std::optional<std::size_t> current_, best_;
  double current_cost_ = 0, best_cost_ = 0;
};

}  // namespace

std::unique_ptr<SearchStrategy> annealing_strategy(SpaceRef space, const SearchLimits& limits, std::uint64_t seed) {
  const std::size_t schedule = std::min(limits.evaluations, space->size());
  return std::make_unique<AnnealingStrategy>(std::move(space), schedule, seed);
}

}  // namespace hone
