// Model-guided search, after TVM's Ansor and efficient global optimisation: a few points spread
// over the space first, then several fits of gradient-boosted trees to what was measured
// (features -> log time), each on its own sample of the rows, rank the untried points by expected
// improvement (the fits' mean and their disagreement, widened where nothing near was measured:
// README, "Search strategies"), with shares of random points and of neighbours of the best point;
// the last 30% of the budget goes by the fits' mean alone. The space is enumerable, so the model
// ranks all of it rather than searching it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "tuner/cost_model.hpp"
#include "tuner/expected_improvement.hpp"
#include "tuner/strategy_grid.hpp"
#include "tuner/strategy_kinds.hpp"
#include "tuner/strategy_proposals.hpp"

namespace hone {

namespace {

// Shares of the proposals once the model leads: a random point (the model is wrong where it has
// seen nothing: kernel spaces have narrow optima that a confident model can hide), the untried
// neighbour of the best point so far with the most expected improvement (the optimum is often one
// parameter step away from a good point), and the rest the point with the most expected
// improvement anywhere. Chosen on the recorded spaces: README, "Search strategies".
constexpr double kExplore = 0.15, kLocal = 0.25;
// Fits per refit. One fit ranked by its mean alone mined a flat ridge of equally good points (a
// parameter that barely matters) while the optimum sat in a region it had never sampled.
constexpr int kFits = 4;
// Added to every spread, so that among points where the fits agree the better mean still ranks
// first by expected improvement (a log time of 1e-4 is a hundredth of a percent).
constexpr double kSpreadFloor = 1e-4;
// Trees predict a region they have no rows in as flat as the nearest leaf, and four fits on
// samples of the same rows agree there: their spread cannot say that nothing near was measured,
// so expected improvement sent the search there only by chance. A point's spread therefore grows
// by this much log time per unit of distance (StrategyGrid::distance) from the nearest point
// measured, as a Gaussian process's variance grows away from its data. 0.1 was chosen over 0.05
// and 0.3 on the spaces of bench/replay's CHOSEN_ON (bench/replay/README.md).
constexpr double kUnseenSpread = 0.1;
// The last tenths of the budget go by the fits' mean alone, with no random points: what a late
// proposal finds out can no longer steer a later one, so only its own chance of being the fastest
// counts, where expected improvement also pays for what the search learns.
constexpr std::size_t kEndgameTenths = 3;
// The first points are spread over the space: each is the farthest from those proposed before it
// of this many random untried points (best-candidate sampling). Plain random draws clump: the bad
// searches at small budgets were those whose first points left whole regions unseen, so that the
// first fit knew nothing there. 16 was chosen over 8 and 64 on the spaces of bench/replay's
// CHOSEN_ON (bench/replay/README.md).
constexpr int kSpreadCandidates = 16;

CostModelOptions model_options(std::uint64_t seed) {
  CostModelOptions o;
  o.seed = seed;
  return o;
}

class ModelGuidedStrategy : public SearchStrategy {
 public:
  ModelGuidedStrategy(SpaceRef space, std::size_t initial, std::size_t endgame, std::uint64_t seed)
      : space_(std::move(space)), grid_(*space_), proposals_(space_->size(), seed, space_->strata), rng_(seed ^ 0x6d0de1), initial_(initial),
        endgame_(endgame) {
    for (int k = 0; k < kFits; ++k) models_.push_back(std::make_unique<CostModel>(model_options(seed + 7919ull * k)));
    cols_ = space_->params.size() + space_->feature_names.size();
    features_.reserve(space_->size() * cols_);
    for (std::size_t i = 0; i < space_->size(); ++i) {
      for (double v : space_->points[i]) features_.push_back(static_cast<float>(v));
      if (!space_->features.empty())
        for (double v : space_->features[i]) features_.push_back(static_cast<float>(v));
    }
    // Equal predictions (trees are piecewise constant) are broken by a seeded order, not by the
    // space's order, which would favour one corner of it.
    tiebreak_ = seeded_permutation(space_->size(), rng_);
    nearest_.assign(space_->size(), std::numeric_limits<double>::infinity());
    strata_ = std::set<std::size_t>(space_->strata.begin(), space_->strata.end()).size();
  }
  std::string name() const override { return "model"; }

  std::optional<std::size_t> next(const std::vector<Observation>& history) override {
    for (; seen_ < history.size(); ++seen_) {
      observed_.push_back(history[seen_]);
      for (std::size_t i = 0; i < nearest_.size(); ++i) nearest_[i] = std::min(nearest_[i], grid_.distance(i, history[seen_].point));
      if (history[seen_].time_ms && (!best_ || *history[seen_].time_ms < best_ms_)) {
        best_ = history[seen_].point;
        best_ms_ = *history[seen_].time_ms;
      }
    }
    if (proposals_.exhausted()) return std::nullopt;
    // Spread points until the first are in and one of them has a time to learn from.
    if (proposals_.count() < initial_ || !best_) return proposals_.take(spread_point());
    // Refit once the data has grown by a tenth: the ranking changes little in between, and
    // fitting is most of the strategy's own time.
    if (observed_.size() >= fitted_at_ + std::max<std::size_t>(1, fitted_at_ / 10)) refit();
    const double u = rng_.uniform();
    const bool endgame = proposals_.count() >= endgame_;  // exploit: by the mean, no random points
    if (u < kExplore && !endgame) return proposals_.take(*proposals_.random_free());
    if (u < kExplore + kLocal) {
      std::optional<std::size_t> pick;
      for (bool adjacent : {true, false}) {
        for (auto n : grid_.neighbours(*best_, adjacent))
          if (!proposals_.taken(n) && (!pick || better(n, *pick, endgame))) pick = n;
        if (pick) return proposals_.take(*pick);
      }
    }
    std::vector<std::size_t>& order = endgame ? by_mean_ : ranked_;
    std::size_t& at = endgame ? mean_cursor_ : cursor_;
    while (at < order.size())
      if (auto p = order[at++]; !proposals_.taken(p)) return proposals_.take(p);
    return proposals_.take(*proposals_.random_free());
  }

 private:
  // A first point: one of each stratum (a template's variant) first, in the seeded order; then the
  // farthest of a few random untried points from the first points proposed so far.
  std::size_t spread_point() {
    std::size_t pick = *proposals_.random_free();
    if (!spread_.empty() && spread_.size() >= strata_) {
      double farthest = distance_to_spread(pick);
      for (int c = 1; c < kSpreadCandidates; ++c) {
        const std::size_t p = rng_.next() % space_->size();
        if (proposals_.taken(p)) continue;
        if (const double d = distance_to_spread(p); d > farthest) {
          pick = p;
          farthest = d;
        }
      }
    }
    spread_.push_back(pick);
    return pick;
  }

  double distance_to_spread(std::size_t p) const {
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t q : spread_) nearest = std::min(nearest, grid_.distance(p, q));
    return nearest;
  }

  bool better(std::size_t a, std::size_t b, bool by_mean) const {
    return by_mean ? mean_[a] < mean_[b] : expected_[a] > expected_[b];
  }

  void refit() {
    // Only times are fitted: a failure says nothing about how fast its neighbours are (the
    // fastest configurations often sit next to the ones that run out of registers or shared
    // memory), and a failed point is never proposed again anyway.
    std::vector<float> x, y;
    for (const auto& o : observed_) {
      if (!o.time_ms) continue;
      x.insert(x.end(), features_.begin() + o.point * cols_, features_.begin() + (o.point + 1) * cols_);
      y.push_back(static_cast<float>(std::log(*o.time_ms)));
    }
    const FeatureRows rows(x, y.size(), cols_);
    if (!all_) all_ = std::make_unique<FeatureRows>(features_, space_->size(), cols_);
    std::vector<std::vector<float>> fits;
    for (auto& m : models_) {
      m->fit(rows, y);
      fits.push_back(m->predict(*all_));
    }
    const auto predictions = combine_fits(fits);
    const double best = std::log(best_ms_);
    expected_.resize(predictions.size());
    mean_.resize(predictions.size());
    for (std::size_t i = 0; i < predictions.size(); ++i) {
      expected_[i] = expected_improvement({predictions[i].mean, predictions[i].spread + kSpreadFloor + kUnseenSpread * nearest_[i]}, best);
      mean_[i] = predictions[i].mean;
    }
    ranked_.clear();
    for (std::size_t i = 0; i < space_->size(); ++i)
      if (!proposals_.taken(i)) ranked_.push_back(i);
    std::sort(ranked_.begin(), ranked_.end(), [&](std::size_t a, std::size_t b) {
      return expected_[a] != expected_[b] ? expected_[a] > expected_[b] : tiebreak_[a] < tiebreak_[b];
    });
    by_mean_ = ranked_;
    std::sort(by_mean_.begin(), by_mean_.end(), [&](std::size_t a, std::size_t b) {
      return mean_[a] != mean_[b] ? mean_[a] < mean_[b] : tiebreak_[a] < tiebreak_[b];
    });
    cursor_ = mean_cursor_ = 0;
    fitted_at_ = observed_.size();
  }

  SpaceRef space_;
  StrategyGrid grid_;
  StrategyProposals proposals_;
  std::optional<std::size_t> best_;
  double best_ms_ = 0;
  Rng rng_;
  std::size_t initial_;
  std::size_t endgame_;  // from this many proposals on, the fits' mean decides, not expected improvement
  std::vector<std::unique_ptr<CostModel>> models_;
  std::size_t cols_ = 0;
  std::vector<float> features_;  // row-major, one row per point
  std::unique_ptr<FeatureRows> all_;
  std::vector<std::size_t> tiebreak_;
  std::size_t seen_ = 0, fitted_at_ = 0, cursor_ = 0, mean_cursor_ = 0;
  std::vector<Observation> observed_;
  std::size_t strata_ = 0;            // the space's strata (0 or 1: none to cover)
  std::vector<std::size_t> spread_;   // the first points, each proposed far from those before it
  std::vector<double> nearest_;       // each point's distance to the nearest point measured
  std::vector<double> expected_;      // each point's expected improvement, as of the last fit
  std::vector<double> mean_;          // each point's predicted log time, as of the last fit
  std::vector<std::size_t> by_mean_;  // untried points, fastest predicted first
  std::vector<std::size_t> ranked_;  // untried points, most expected improvement first, as of the last fit
};

}  // namespace

std::unique_ptr<SearchStrategy> model_guided_strategy(SpaceRef space, const SearchLimits& limits, std::uint64_t seed) {
  // Enough first points for a first fit that is better than a guess, few enough to leave most of
  // the budget to the model.
  const std::size_t initial = std::clamp<std::size_t>(limits.evaluations / 10, 8, 30);
  // 70% of the budget, rounded down, without overflowing an unbounded one.
  const std::size_t endgame = limits.evaluations / 10 * (10 - kEndgameTenths) + limits.evaluations % 10 * (10 - kEndgameTenths) / 10;
  return std::make_unique<ModelGuidedStrategy>(std::move(space), initial, endgame, seed);
}

}  // namespace hone
