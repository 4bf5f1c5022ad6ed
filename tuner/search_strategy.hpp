#pragma once
// Search strategies: which point of a task's space to evaluate next, given what was measured.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hone {

struct Observation {
  std::size_t point = 0;
  std::optional<double> time_ms;  // empty: the candidate failed
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;
  /// The next point to evaluate, or nothing when the strategy has no more to propose.
  virtual std::optional<std::size_t> next(const std::vector<Observation>& history) = 0;
};

/// "exhaustive", "random", or "auto" (exhaustive when the space fits in the budget, else random).
/// Throws InputError for another name.
std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, std::size_t space_size, std::size_t budget,
                                              std::uint64_t seed);

/// The names make_strategy accepts.
std::vector<std::string> strategy_names();

}  // namespace hone
