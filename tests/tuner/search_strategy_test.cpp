#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "core/input_error.hpp"
#include "tuner/search_strategy.hpp"

using namespace hone;

namespace {
std::vector<std::size_t> drain(SearchStrategy& s) {
  std::vector<std::size_t> out;
  while (auto p = s.next({})) out.push_back(*p);
  return out;
}
}  // namespace

TEST_CASE("strategy: exhaustive visits every point once, in order") {
  auto s = make_strategy("exhaustive", 5, 100, 1);
  CHECK(drain(*s) == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("strategy: random is a seeded permutation") {
  auto a = drain(*make_strategy("random", 50, 10, 7));
  auto b = drain(*make_strategy("random", 50, 10, 7));
  auto c = drain(*make_strategy("random", 50, 10, 8));
  CHECK(a == b);
  CHECK(a != c);
  CHECK(std::set<std::size_t>(a.begin(), a.end()).size() == 50);
  CHECK(!std::is_sorted(a.begin(), a.end()));
}

TEST_CASE("strategy: auto is exhaustive when the space fits the budget, else random") {
  CHECK(make_strategy("auto", 8, 8, 1)->name() == "exhaustive");
  CHECK(make_strategy("auto", 9, 8, 1)->name() == "random");
  CHECK_THROWS_AS(make_strategy("annealing", 9, 8, 1), InputError);
}
