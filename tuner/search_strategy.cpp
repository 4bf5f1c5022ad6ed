#include "tuner/search_strategy.hpp"

#include <numeric>

#include "core/host_tensor.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

// Visits the points in a fixed order: all of them for exhaustive, a seeded permutation for random.
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

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<std::size_t> shuffled(std::size_t n, std::uint64_t seed) {
  auto v = identity(n);
  Rng rng(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
  return v;
}

}  // namespace

std::vector<std::string> strategy_names() { return {"auto", "exhaustive", "random"}; }

std::unique_ptr<SearchStrategy> make_strategy(const std::string& name, std::size_t space_size, std::size_t budget,
                                              std::uint64_t seed) {
  if (name == "exhaustive" || (name == "auto" && space_size <= budget))
    return std::make_unique<OrderedStrategy>("exhaustive", identity(space_size));
  if (name == "random" || name == "auto") return std::make_unique<OrderedStrategy>("random", shuffled(space_size, seed));
  throw InputError("--strategy '" + name + "': expected auto, exhaustive or random");
}

}  // namespace hone
