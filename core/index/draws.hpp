#pragma once
// What several index generators draw alike: shuffles, distinct picks from a pool, the rows a
// batch pads.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <vector>

#include "core/index_generator.hpp"

namespace hone::index_draws {

inline void shuffle(std::vector<std::int64_t>& v, const IndexCall& call) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[call.below(i)]);
}

/// 0..n-1 in a random order.
inline std::vector<std::int64_t> permutation(std::int64_t n, const IndexCall& call) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  shuffle(v, call);
  return v;
}

/// `count` distinct rows of 0..rows-1 other than `keep`, at random: the rows a batch pads (a
/// padded row is one engines fill up a batch with, at least one when there are two rows or more).
inline std::set<std::int64_t> padded_rows(std::int64_t rows, std::int64_t keep, std::int64_t count, const IndexCall& call) {
  std::vector<std::int64_t> others;
  for (std::int64_t r = 0; r < rows; ++r)
    if (r != keep) others.push_back(r);
  shuffle(others, call);
  others.resize(static_cast<std::size_t>(std::min<std::int64_t>(count, static_cast<std::int64_t>(others.size()))));
  return {others.begin(), others.end()};
}

/// How many rows of a batch the typical draw pads: one in eight, at least one from two rows on.
inline std::int64_t typical_pads(std::int64_t rows) { return rows < 2 ? 0 : std::max<std::int64_t>(1, rows / 8); }

}  // namespace hone::index_draws
