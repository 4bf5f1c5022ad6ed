#pragma once
// The space as a grid: each parameter's distinct values in ascending order (the space's value
// order), each point as its value ranks, and lookups of the points that differ in one parameter.
// Annealing and the genetic strategy move on it.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tuner/search_strategy.hpp"

namespace hone {

class StrategyGrid {
 public:
  using Ranks = std::vector<std::uint32_t>;

  explicit StrategyGrid(const SearchSpace& space);
  std::size_t params() const { return levels_.size(); }
  /// How many distinct values parameter p takes.
  std::size_t levels(std::size_t p) const { return levels_[p]; }
  const Ranks& ranks(std::size_t point) const { return ranks_[point]; }
  /// The point with these ranks, if the space has it (restrictions leave holes in the grid).
  std::optional<std::size_t> find(const Ranks& ranks) const;
  /// Points that differ from `point` in exactly one parameter: with `adjacent`, only by one step
  /// in that parameter's value order, else by any value.
  std::vector<std::size_t> neighbours(std::size_t point, bool adjacent) const;
  /// How far apart two points are: over the parameters, the difference of their value ranks as a
  /// fraction of that parameter's range of ranks (each parameter counts at most 1, whatever its
  /// number of values).
  double distance(std::size_t a, std::size_t b) const;

 private:
  static std::string key(const Ranks& r);
  std::vector<std::size_t> levels_;
  std::vector<Ranks> ranks_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace hone
