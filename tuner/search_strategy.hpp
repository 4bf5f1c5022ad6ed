#pragma once
// Search strategies: which point of a task's space to evaluate next, given the space and what was
// measured. One interface, one factory (make_strategy); each strategy is deterministic for a seed
// and never proposes a point twice.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hone {

/// What a strategy may know of the space it searches.
struct SearchSpace {
  std::vector<std::string> params;             // parameter names
  std::vector<std::vector<double>> points;     // points[i][p]: the value of parameter p at point i
  std::vector<std::string> feature_names;      // static features known before running (registers, shared bytes, ...)
  std::vector<std::vector<double>> features;   // features[i][f]; empty when none are known
  // strata[i]: the stratum of point i (a template's variant), whose first random draws take one
  // point of each stratum, so that a small variant is not left out of a small budget; empty: none
  std::vector<std::size_t> strata;
  std::size_t size() const { return points.size(); }
};

struct Observation {
  std::size_t point = 0;
  std::optional<double> time_ms;  // empty: the candidate failed
};

/// When a search stops: whichever limit comes first. A strategy that has nothing left to propose
/// stops too.
struct SearchLimits {
  std::size_t evaluations = 20;    // points proposed, failed ones included
  std::optional<double> seconds;   // time since the first proposal, on `clock`
  std::size_t plateau = 0;         // evaluations in a row without a better time; 0: no plateau stop
  /// Seconds elapsed on the search's clock; empty: wall time since the first proposal. The replay
  /// benchmark passes the recorded tuning time instead.
  std::function<double()> clock;

  /// Only an evaluation budget.
  static SearchLimits of(std::size_t evaluations) {
    SearchLimits l;
    l.evaluations = evaluations;
    return l;
  }
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  /// The next point to evaluate, or nothing when the search is over. `history` holds every
  /// evaluation so far, in order; a caller may ask for several points before their results are
  /// in (a compile batch), and none of them is proposed again.
  virtual std::optional<std::size_t> next(const std::vector<Observation>& history) = 0;
};

/// "exhaustive" (the space in order), "random" (a seeded permutation), "annealing" (simulated
/// annealing over neighbours), "genetic" (a steady-state genetic algorithm), "model" (random
/// points first, then the best predicted by gradient-boosted trees fitted to what was measured),
/// or "auto" (exhaustive when the space fits in limits.evaluations, else model). The strategy
/// stops at the limits. Throws InputError for another name.
std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, std::shared_ptr<const SearchSpace> space,
                                              const SearchLimits& limits, std::uint64_t seed);

/// The names make_strategy accepts.
std::vector<std::string> strategy_names();

}  // namespace hone
