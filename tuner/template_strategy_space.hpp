#pragma once
// The space a strategy searches for a template task: one parameter per template parameter (the
// union over the variants) plus the variant itself, each point's configuration values as numbers.
#include <memory>
#include <vector>

#include "tuner/search_strategy.hpp"
#include "tuner/template_proposer.hpp"

namespace hone {

/// Static features (registers, shared memory) are not known before a point is compiled, so the
/// space has none; a parameter a variant lacks is -1 at that variant's points.
std::shared_ptr<const SearchSpace> template_strategy_space(const std::vector<TemplatePoint>& points);

}  // namespace hone
