#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/number_list.hpp"
#include "cli/table.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "tuner/replay_benchmark.hpp"
#include "tuner/search_strategy.hpp"

namespace hone::cli {

namespace {

struct ReplayArgs {
  std::string cache, strategy = "auto", budgets = "50,100,200,400", trace;
  ReplayOptions options;
  bool json = false;
};

std::vector<std::size_t> parse_budgets(const std::string& s) {
  std::vector<std::size_t> out;
  for (auto v : positive_integers(s, "--budget")) out.push_back(static_cast<std::size_t>(v));
  return out;
}

// A ratio is infinite when no seed found a valid configuration: JSON has no infinity, so null.
nlohmann::json ratio_json(double r) { return std::isfinite(r) ? nlohmann::json(r) : nlohmann::json(nullptr); }

// One JSON line per search: what it evaluated, in order, each configuration's key and its time over
// the optimum (null for a failure), to see where a search went and why it stalled.
std::string trace_lines(const ReplayCache& cache, const std::vector<ReplayScore>& scores) {
  const double optimum = *cache.entries[*cache.best()].time_ms;
  std::string out;
  for (const auto& s : scores)
    for (std::size_t seed = 0; seed < s.evaluated.size(); ++seed) {
      auto evaluated = nlohmann::json::array();
      for (auto p : s.evaluated[seed]) {
        const ReplayEntry& e = cache.entries[p];
        evaluated.push_back({e.key, e.time_ms ? nlohmann::json(*e.time_ms / optimum) : nlohmann::json(nullptr)});
      }
      const nlohmann::json line = {{"strategy", s.strategy}, {"budget", s.budget}, {"seed", seed + 1},
                                   {"ratio", ratio_json(s.ratios[seed])}, {"evaluated", std::move(evaluated)}};
      out += line.dump() + "\n";
    }
  return out;
}

int run_replay(ReplayArgs a) {
  a.options.strategies.clear();
  if (a.strategy == "all") {
    // Every strategy that searches; exhaustive is left out: it is the file's order, one result
    // whatever the seed.
    for (const auto& n : strategy_names())
      if (n != "exhaustive") a.options.strategies.push_back(n);
  } else {
    const auto names = strategy_names();
    if (std::find(names.begin(), names.end(), a.strategy) == names.end())
      throw InputError("--strategy '" + a.strategy + "': expected all or one of auto, exhaustive, random, annealing, genetic, model");
    a.options.strategies = {a.strategy};
  }
  a.options.budgets = parse_budgets(a.budgets);
  if (a.options.seeds == 0) throw InputError("--seeds must be at least 1");
  // Found out before the searches, which can take minutes, not after.
  if (!a.trace.empty() && !std::filesystem::is_directory(std::filesystem::absolute(a.trace).parent_path()))
    throw InputError("--trace " + a.trace + ": cannot be written (its directory does not exist)");
  const ReplayCache cache = read_replay_cache(a.cache);
  const auto best = cache.best();
  if (!best) throw InputError(a.cache + ": no configuration has a valid time");
  const auto scores = replay_benchmark(cache, a.options);
  if (!a.trace.empty()) write_file_atomically(a.trace, trace_lines(cache, scores));

  if (a.json) {
    auto out = nlohmann::json::array();
    for (const auto& s : scores) {
      auto ratios = nlohmann::json::array();
      for (double r : s.ratios) ratios.push_back(ratio_json(r));
      out.push_back({{"strategy", s.strategy}, {"budget", s.budget}, {"median_ratio", ratio_json(s.median_ratio)},
                     {"p90_ratio", ratio_json(s.p90_ratio)}, {"ratios", ratios}});
    }
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}: {} configurations ({} valid){}, optimum {:.4g} ms ({})\n", a.cache, cache.entries.size(), cache.valid(),
                           cache.unclosed ? ", file unclosed" : "", *cache.entries[*best].time_ms, cache.entries[*best].key);
  std::cout << fmt::format("best time found over the optimum, {} seeds\n\n", a.options.seeds);
  Table t({"strategy", "budget", "median", "p90", "evaluations"});
  for (const auto& s : scores)
    t.add({s.strategy, std::to_string(s.budget), fmt::format("{:.3f}", s.median_ratio), fmt::format("{:.3f}", s.p90_ratio),
           fmt::format("{:.0f}", s.mean_evaluations())});
  std::cout << t.str();
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ReplayArgs>();
  auto* cmd = app.add_subcommand("replay", "Measure search strategies on a recorded space (a Kernel Tuner cache file), without a GPU");
  cmd->add_option("--cache", a->cache, "Kernel Tuner cache file, JSON or gzip")->required();
  cmd->add_option("--strategy", a->strategy, "a strategy, or all")->capture_default_str();
  cmd->add_option("--budget", a->budgets, "evaluations per search, comma-separated for several")->capture_default_str();
  cmd->add_option("--seeds", a->options.seeds, "searches per strategy and budget, seeds 1..N")->capture_default_str();
  cmd->add_option("--plateau", a->options.plateau, "stop a search after this many evaluations without a better time (0: never)")
      ->capture_default_str();
  cmd->add_option("--jobs", a->options.threads, "threads (0: one per core)")->capture_default_str();
  cmd->add_option("--trace", a->trace,
                  "write one JSON line per search: its strategy, budget, seed, ratio and evaluated configurations in order "
                  "([key, time over the optimum or null])");
  cmd->add_flag("--json", a->json, "print a JSON list of {strategy, budget, median_ratio, p90_ratio, ratios (one per seed, in seed order)}");
  cmd->callback([a, &action] { action = [a] { return run_replay(*a); }; });
}

}  // namespace hone::cli
