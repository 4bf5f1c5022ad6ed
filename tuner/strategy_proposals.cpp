#include "tuner/strategy_proposals.hpp"

#include <numeric>
#include <set>

namespace hone {

std::vector<std::size_t> seeded_permutation(std::size_t n, Rng& rng) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  for (std::size_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
  return v;
}

StrategyProposals::StrategyProposals(std::size_t space_size, std::uint64_t seed, const std::vector<std::size_t>& strata)
    : taken_(space_size, false) {
  Rng rng(seed);
  order_ = seeded_permutation(space_size, rng);
  if (strata.size() != space_size) return;
  // Each stratum's first point in the permutation moves to the front, in permutation order.
  std::set<std::size_t> seen;
  std::vector<std::size_t> firsts, rest;
  for (std::size_t p : order_) (seen.insert(strata[p]).second ? firsts : rest).push_back(p);
  firsts.insert(firsts.end(), rest.begin(), rest.end());
  order_ = std::move(firsts);
}

std::size_t StrategyProposals::take(std::size_t point) {
  if (!taken_[point]) {
    taken_[point] = true;
    ++count_;
  }
  return point;
}

std::optional<std::size_t> StrategyProposals::random_free() {
  while (cursor_ < order_.size() && taken_[order_[cursor_]]) ++cursor_;
  if (cursor_ == order_.size()) return std::nullopt;
  return order_[cursor_];
}

}  // namespace hone
