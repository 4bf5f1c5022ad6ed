// The limits every strategy stops at (evaluations, time, plateau), kept out of the strategies so
// that each of them is only about where to look next.
#include <chrono>
#include <limits>

#include "tuner/strategy_kinds.hpp"

namespace hone {

namespace {

class LimitedStrategy : public SearchStrategy {
 public:
  LimitedStrategy(std::unique_ptr<SearchStrategy> inner, const SearchLimits& limits) : inner_(std::move(inner)), limits_(limits) {}
  std::string name() const override { return inner_->name(); }

  std::optional<std::size_t> next(const std::vector<Observation>& history) override {
    if (proposed_ >= limits_.evaluations) return std::nullopt;
    if (limits_.seconds && elapsed() >= *limits_.seconds) return std::nullopt;
    if (limits_.plateau && since_improvement(history) >= limits_.plateau) return std::nullopt;
    auto p = inner_->next(history);
    if (p) ++proposed_;
    return p;
  }

 private:
  double elapsed() {
    if (limits_.clock) return limits_.clock();
    const auto now = std::chrono::steady_clock::now();
    if (!start_) start_ = now;
    return std::chrono::duration<double>(now - *start_).count();
  }

  // Evaluations since the best time so far was first reached (all of them when none is valid).
  std::size_t since_improvement(const std::vector<Observation>& history) {
    for (; seen_ < history.size(); ++seen_)
      if (history[seen_].time_ms && (!best_ || *history[seen_].time_ms < *best_)) {
        best_ = history[seen_].time_ms;
        best_at_ = seen_ + 1;
      }
    return history.size() - best_at_;
  }

  std::unique_ptr<SearchStrategy> inner_;
  SearchLimits limits_;
  std::size_t proposed_ = 0;
  std::optional<std::chrono::steady_clock::time_point> start_;
  std::size_t seen_ = 0, best_at_ = 0;
  std::optional<double> best_;
};

}  // namespace

std::unique_ptr<SearchStrategy> limited_strategy(std::unique_ptr<SearchStrategy> inner, const SearchLimits& limits) {
  return std::make_unique<LimitedStrategy>(std::move(inner), limits);
}

}  // namespace hone
