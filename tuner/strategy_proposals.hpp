#pragma once
// What a strategy has proposed so far, so that it never proposes a point twice, and seeded random
// draws among the points not proposed yet.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/host_tensor.hpp"

namespace hone {

class StrategyProposals {
 public:
  /// With strata (one per point, or empty), the first draws are one point of each stratum.
  StrategyProposals(std::size_t space_size, std::uint64_t seed, const std::vector<std::size_t>& strata = {});
  bool taken(std::size_t point) const { return taken_[point]; }
  /// Marks the point proposed and returns it.
  std::size_t take(std::size_t point);
  std::size_t count() const { return count_; }
  bool exhausted() const { return count_ == taken_.size(); }
  /// A point not proposed yet, uniformly at random (not marked); empty when none is left.
  std::optional<std::size_t> random_free();

 private:
  std::vector<bool> taken_;
  std::size_t count_ = 0;
  std::vector<std::size_t> order_;  // a seeded permutation, walked once: amortised O(1) draws
  std::size_t cursor_ = 0;
};

/// A seeded permutation of 0..n-1.
std::vector<std::size_t> seeded_permutation(std::size_t n, Rng& rng);

}  // namespace hone
