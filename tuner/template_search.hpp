#pragma once
// The template proposer as a search: a strategy walks the valid configurations of the family's
// templates at the task's shape, learning from the times it is told.
#include <map>
#include <memory>
#include <string>

#include "core/op_spec.hpp"
#include "tuner/proposer.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/template_proposer.hpp"

namespace hone {

class TemplateSearch : public Proposer {
 public:
  /// Throws InputError for an unknown strategy name. `arch` ("sm_90") decides which variants exist.
  TemplateSearch(const OpSpec& op, const Bindings& shape, const std::string& arch, const std::string& strategy,
                 const SearchLimits& limits, std::uint64_t seed);

  std::string name() const override { return "template"; }
  std::size_t budget() const override { return budget_; }
  std::vector<Candidate> propose(std::size_t max) override;
  void observe(const Candidate& candidate, const ResultRecord& result) override;

  std::size_t space_size() const { return space_.size(); }
  std::string strategy_name() const { return strategy_->name(); }

 private:
  const OpSpec& op_;
  Bindings shape_;
  std::vector<TemplatePoint> space_;
  std::unique_ptr<SearchStrategy> strategy_;
  std::vector<Observation> history_;
  std::map<std::string, std::size_t> point_of_;  // candidate key -> point
  std::size_t budget_;
};

}  // namespace hone
