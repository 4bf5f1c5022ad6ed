#pragma once
// The strategies behind make_strategy, one file each; only search_strategy.cpp builds them.
#include <memory>

#include "tuner/search_strategy.hpp"

namespace hone {

using SpaceRef = std::shared_ptr<const SearchSpace>;

std::unique_ptr<SearchStrategy> exhaustive_strategy(SpaceRef space);
std::unique_ptr<SearchStrategy> random_strategy(SpaceRef space, std::uint64_t seed);
/// Its cooling schedule spans limits.evaluations.
std::unique_ptr<SearchStrategy> annealing_strategy(SpaceRef space, const SearchLimits& limits, std::uint64_t seed);
std::unique_ptr<SearchStrategy> genetic_strategy(SpaceRef space, std::uint64_t seed);
/// Its share of spread first points is sized by limits.evaluations.
std::unique_ptr<SearchStrategy> model_guided_strategy(SpaceRef space, const SearchLimits& limits, std::uint64_t seed);

/// `inner`, stopped at the limits.
std::unique_ptr<SearchStrategy> limited_strategy(std::unique_ptr<SearchStrategy> inner, const SearchLimits& limits);

}  // namespace hone
