// Exhaustive and random search: the points in a fixed order, all of them in the space's own order
// or a seeded permutation. Random search is the baseline every other strategy must beat.
#include <numeric>

#include "tuner/strategy_kinds.hpp"
#include "tuner/strategy_proposals.hpp"

namespace hone {

namespace {

class OrderedStrategy : public SearchStrategy {
 public:
  OrderedStrategy(std::string name, std::vector<std::size_t> order) : name_(std::move(name)), order_(std::move(order)) {}
  std::string name() const override { return name_; }
  std::optional<std::size_t> next(const std::vector<Observation>&) override {
    if (pos_ >= order_.size()) return std::nullopt;
    return order_[pos_++];
  }

 private:
  std::string name_;
  std::vector<std::size_t> order_;
  std::size_t pos_ = 0;
};

}  // namespace

std::unique_ptr<SearchStrategy> exhaustive_strategy(SpaceRef space) {
  std::vector<std::size_t> order(space->size());
  std::iota(order.begin(), order.end(), 0);
  return std::make_unique<OrderedStrategy>("exhaustive", std::move(order));
}

std::unique_ptr<SearchStrategy> random_strategy(SpaceRef space, std::uint64_t seed) {
  Rng rng(seed);
  return std::make_unique<OrderedStrategy>("random", seeded_permutation(space->size(), rng));
}

}  // namespace hone
