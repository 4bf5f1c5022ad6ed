#pragma once
// Where a task's candidates come from: the template search, or an LLM. A task asks each of its
// proposers in turn for candidates, validates them, and tells the proposer what came of each.
#include <cstddef>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "knowledge_db/knowledge_db.hpp"

namespace hone {

class Proposer {
 public:
  virtual ~Proposer() = default;
  /// "template", "llm".
  virtual std::string name() const = 0;
  /// How many candidates this proposer may make for the task, at most.
  virtual std::size_t budget() const = 0;
  /// Up to `max` new candidates; none when it has nothing more to offer. It is asked again once
  /// the results of the ones it gave were observed.
  virtual std::vector<Candidate> propose(std::size_t max) = 0;
  /// The outcome of a candidate it made (stored result: verdict, stage, reason, time).
  virtual void observe(const Candidate& candidate, const ResultRecord& result) = 0;
};

}  // namespace hone
