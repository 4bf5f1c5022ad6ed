#include <doctest/doctest.h>

#include <algorithm>

#include "tuner/strategy_grid.hpp"

using namespace hone;

namespace {

// An a x b grid, a in 0..4 and b in 0..3, with the point (a=4, b=0) left out, as a restriction
// leaves holes.
SearchSpace grid_space() {
  SearchSpace s;
  s.params = {"a", "b"};
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 4; ++b)
      if (!(a == 4 && b == 0)) s.points.push_back({double(a), double(b)});
  return s;
}

std::size_t at(const SearchSpace& s, int a, int b) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s.points[i][0] == a && s.points[i][1] == b) return i;
  FAIL("no such point");
  return 0;
}

}  // namespace

TEST_CASE("strategy grid: neighbours differ in one parameter, by one step or by any value, and skip the holes") {
  const SearchSpace s = grid_space();
  const StrategyGrid grid(s);
  CHECK(grid.levels(0) == 5);
  auto adjacent = grid.neighbours(at(s, 3, 0), true);
  std::sort(adjacent.begin(), adjacent.end());
  CHECK(adjacent == std::vector<std::size_t>{at(s, 2, 0), at(s, 3, 1)});  // (4,0) is a hole
  CHECK(grid.neighbours(at(s, 3, 0), false).size() == 3 + 3);             // a = 0, 1, 2; b = 1, 2, 3
}

TEST_CASE("strategy grid: a point is found by its value ranks, a hole is not") {
  const SearchSpace s = grid_space();
  const StrategyGrid grid(s);
  CHECK(grid.ranks(at(s, 3, 2)) == StrategyGrid::Ranks{3, 2});
  CHECK(grid.find({3, 2}) == at(s, 3, 2));
  CHECK_FALSE(grid.find({4, 0}).has_value());
  CHECK_FALSE(grid.find({5, 0}).has_value());
}
