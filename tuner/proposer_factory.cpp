#include "tuner/proposer_factory.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "tuner/llm/llm_proposer.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/tuning_job.hpp"

namespace hone {

void check_proposer(const std::string& name) {
  if (name != "template" && name != "llm") throw InputError("--proposer '" + name + "': expected template, llm or both");
}

void check_proposer(const std::string& name, const TuneOptions& options) {
  check_proposer(name);
  if (name == "llm") resolve_llm_endpoint(options.llm);
}

void check_strategy(const std::string& name) {
  const auto names = strategy_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw InputError("--strategy '" + name + "': expected one of " + all);
  }
}

std::unique_ptr<Proposer> make_proposer(const std::string& name, const ProposerSetup& s) {
  check_proposer(name);
  if (name == "llm") return std::make_unique<LlmProposer>(s, s.options->llm, resolve_llm_endpoint(s.options->llm), s.options->llm.sleep);
  SearchLimits limits = SearchLimits::of(s.options->budget);
  limits.seconds = s.options->task_seconds;
  limits.plateau = s.options->plateau;
  return std::make_unique<TemplateSearch>(*s.op, s.task->shape, s.task->arch.empty() ? "sm_90" : s.task->arch, s.options->strategy,
                                          limits, s.options->seed);
}

}  // namespace hone
