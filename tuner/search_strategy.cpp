#include "tuner/search_strategy.hpp"

#include "core/input_error.hpp"
#include "tuner/strategy_kinds.hpp"

namespace hone {

std::vector<std::string> strategy_names() { return {"auto", "exhaustive", "random", "annealing", "genetic", "model"}; }

std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, std::shared_ptr<const SearchSpace> space,
                                              const SearchLimits& limits, std::uint64_t seed) {
  if (!space) throw InputError("make_strategy: no space");
  for (const auto& pt : space->points)
    if (pt.size() != space->params.size()) throw InputError("make_strategy: a point has the wrong number of parameter values");
  if (!space->features.empty() && space->features.size() != space->size())
    throw InputError("make_strategy: static features must be given for every point or for none");

  std::unique_ptr<SearchStrategy> s;
  // auto: trying everything is best when it fits; otherwise the learned model finds the optimum
  // in the fewest evaluations on the recorded spaces (README, "Search strategies").
  if (name == "exhaustive" || (name == "auto" && space->size() <= limits.evaluations))
    s = exhaustive_strategy(space);
  else if (name == "random")
    s = random_strategy(space, seed);
  else if (name == "annealing")
    s = annealing_strategy(space, limits, seed);
  else if (name == "genetic")
    s = genetic_strategy(space, seed);
  else if (name == "model" || name == "auto")
    s = model_guided_strategy(space, limits, seed);
  else
    throw InputError("--strategy '" + name + "': expected one of auto, exhaustive, random, annealing, genetic, model");
  return limited_strategy(std::move(s), limits);
}

}  // namespace hone
