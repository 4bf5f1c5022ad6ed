#pragma once
// Search strategies replayed on a recorded space (a Kernel Tuner cache): each strategy proposes,
// the recorded time or failure answers, over many seeds. The score of a search is the best valid
// time it found over the best valid time in the whole cache; failed configurations count as
// evaluations.
#include <memory>
#include <string>
#include <vector>

#include "runtime/replay_cache.hpp"
#include "tuner/search_strategy.hpp"

namespace hone {

/// The space of a cache: its entries, in the file's order, with their parameter values.
std::shared_ptr<const SearchSpace> replay_search_space(const ReplayCache& cache);

struct ReplayRun {
  double ratio = 0;                     // best time found / optimum; infinity when no valid point was found
  std::vector<std::size_t> evaluated;  // the points the search evaluated before it stopped, in order
};

/// One search. A time limit in `limits` is measured in the recorded tuning time of the points
/// evaluated (compile, verification and benchmark time), not in wall time.
ReplayRun replay_search(const ReplayCache& cache, std::shared_ptr<const SearchSpace> space, const std::string& strategy,
                        SearchLimits limits, std::uint64_t seed);

struct ReplayOptions {
  std::vector<std::string> strategies{"auto"};
  std::vector<std::size_t> budgets{50, 100, 200, 400};
  std::size_t seeds = 50;        // seeds 1..seeds
  std::size_t plateau = 0;       // see SearchLimits
  unsigned threads = 0;          // 0: one per core
};

struct ReplayScore {
  std::string strategy;
  std::size_t budget = 0;
  double median_ratio = 0, p90_ratio = 0;  // over the seeds; p90 by nearest rank
  std::vector<double> ratios;  // one per seed, seeds 1..N in order: two strategies compare seed by seed
  std::vector<std::vector<std::size_t>> evaluated;  // per seed, as ratios: each search's points in order

  /// How many points a search evaluated, on average over the seeds (fewer than the budget when a
  /// plateau or time limit stopped it).
  double mean_evaluations() const;
};

/// Every strategy at every budget over the seeds, in the order of the options.
std::vector<ReplayScore> replay_benchmark(const ReplayCache& cache, const ReplayOptions& options);

/// The median (mean of the middle two for an even count) and the nearest-rank q-quantile.
double median_of(std::vector<double> v);
double quantile_of(std::vector<double> v, double q);

}  // namespace hone
