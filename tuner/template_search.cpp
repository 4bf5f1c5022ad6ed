#include "tuner/template_search.hpp"

#include "tuner/template_strategy_space.hpp"

namespace hone {

TemplateSearch::TemplateSearch(const OpSpec& op, const Bindings& shape, const std::string& arch, const std::string& strategy,
                               const SearchLimits& limits, std::uint64_t seed)
    : op_(op), shape_(shape), space_(template_space(op, shape, arch)), budget_(std::min(limits.evaluations, space_.size())) {
  strategy_ = make_strategy(strategy, template_strategy_space(space_), limits, seed);
}

std::vector<Candidate> TemplateSearch::propose(std::size_t max) {
  std::vector<Candidate> out;
  while (out.size() < max) {
    auto point = strategy_->next(history_);
    if (!point) break;
    Candidate c = render_template(op_, *space_[*point].variant, space_[*point].config, shape_);
    point_of_[c.key()] = *point;
    out.push_back(std::move(c));
  }
  return out;
}

void TemplateSearch::observe(const Candidate& candidate, const ResultRecord& result) {
  auto it = point_of_.find(candidate.key());
  if (it == point_of_.end()) return;
  const bool timed = result.verdict == "pass" && result.time_ms > 0;
  history_.push_back({it->second, timed ? std::optional<double>(result.time_ms) : std::nullopt});
}

}  // namespace hone
