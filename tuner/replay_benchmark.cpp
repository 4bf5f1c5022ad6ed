#include "tuner/replay_benchmark.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>

#include "core/input_error.hpp"

namespace hone {

std::shared_ptr<const SearchSpace> replay_search_space(const ReplayCache& cache) {
  auto s = std::make_shared<SearchSpace>();
  s->params = cache.params;
  for (const auto& e : cache.entries) s->points.push_back(e.values);
  return s;
}

// The replay "device": a point is answered with its recorded time, or its recorded failure.
ReplayRun replay_search(const ReplayCache& cache, std::shared_ptr<const SearchSpace> space, const std::string& strategy,
                        SearchLimits limits, std::uint64_t seed) {
  const auto best = cache.best();
  if (!best) throw input_error(cache.file.string(), "no configuration has a valid time: there is no optimum to compare with");
  double recorded_ms = 0;
  limits.clock = [&recorded_ms] { return recorded_ms / 1000; };
  auto s = make_strategy(strategy, std::move(space), limits, seed);
  std::vector<Observation> history;
  ReplayRun run;
  double found = std::numeric_limits<double>::infinity();
  while (auto p = s->next(history)) {
    const ReplayEntry& e = cache.entries.at(*p);
    recorded_ms += e.cost_ms;
    history.push_back({*p, e.time_ms});
    run.evaluated.push_back(*p);
    if (e.time_ms) found = std::min(found, *e.time_ms);
  }
  run.ratio = found / *cache.entries[*best].time_ms;
  return run;
}

double ReplayScore::mean_evaluations() const {
  double sum = 0;
  for (const auto& e : evaluated) sum += e.size();
  return evaluated.empty() ? 0 : sum / evaluated.size();
}

double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double quantile_of(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * v.size()));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

std::vector<ReplayScore> replay_benchmark(const ReplayCache& cache, const ReplayOptions& o) {
  const auto space = replay_search_space(cache);
  struct Job {
    std::size_t strategy, budget;
    std::uint64_t seed;
  };
  std::vector<Job> jobs;
  for (std::size_t s = 0; s < o.strategies.size(); ++s)
    for (std::size_t b = 0; b < o.budgets.size(); ++b)
      for (std::uint64_t seed = 1; seed <= o.seeds; ++seed) jobs.push_back({s, b, seed});
  // Each search is independent and deterministic for its seed: run them on all cores, each result
  // in its own slot, so the scores do not depend on the thread count.
  std::vector<ReplayRun> runs(jobs.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (std::size_t i; (i = next++) < jobs.size() && !failed;) {
      try {
        SearchLimits limits;
        limits.evaluations = o.budgets[jobs[i].budget];
        limits.plateau = o.plateau;
        runs[i] = replay_search(cache, space, o.strategies[jobs[i].strategy], limits, jobs[i].seed);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  };
  const unsigned n = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::min<std::size_t>(n, jobs.size()); ++t) pool.emplace_back(work);
  }
  if (error) std::rethrow_exception(error);

  std::vector<ReplayScore> out;
  for (std::size_t s = 0; s < o.strategies.size(); ++s)
    for (std::size_t b = 0; b < o.budgets.size(); ++b) {
      std::vector<double> ratios;
      std::vector<std::vector<std::size_t>> evaluated;
      for (std::size_t i = 0; i < jobs.size(); ++i)
        if (jobs[i].strategy == s && jobs[i].budget == b) {
          ratios.push_back(runs[i].ratio);
          evaluated.push_back(std::move(runs[i].evaluated));
        }
      out.push_back({o.strategies[s], o.budgets[b], median_of(ratios), quantile_of(ratios, 0.9), std::move(ratios), std::move(evaluated)});
    }
  return out;
}

}  // namespace hone
