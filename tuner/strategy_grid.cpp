#include "tuner/strategy_grid.hpp"

#include <algorithm>

namespace hone {

StrategyGrid::StrategyGrid(const SearchSpace& space) {
  const std::size_t np = space.params.size();
  std::vector<std::vector<double>> values(np);
  for (const auto& pt : space.points)
    for (std::size_t p = 0; p < np; ++p) values[p].push_back(pt[p]);
  for (auto& v : values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    levels_.push_back(v.size());
  }
  ranks_.reserve(space.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    Ranks r(np);
    for (std::size_t p = 0; p < np; ++p)
      r[p] = static_cast<std::uint32_t>(std::lower_bound(values[p].begin(), values[p].end(), space.points[i][p]) - values[p].begin());
    index_.emplace(key(r), i);  // a duplicate point keeps its first index
    ranks_.push_back(std::move(r));
  }
}

std::string StrategyGrid::key(const Ranks& r) {
  return std::string(reinterpret_cast<const char*>(r.data()), r.size() * sizeof(std::uint32_t));
}

std::optional<std::size_t> StrategyGrid::find(const Ranks& ranks) const {
  auto it = index_.find(key(ranks));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::size_t> StrategyGrid::neighbours(std::size_t point, bool adjacent) const {
  std::vector<std::size_t> out;
  Ranks r = ranks_[point];
  for (std::size_t p = 0; p < r.size(); ++p) {
    const std::uint32_t own = r[p];
    for (std::uint32_t v = 0; v < levels_[p]; ++v) {
      if (v == own || (adjacent && v + 1 != own && v != own + 1)) continue;
      r[p] = v;
      if (auto n = find(r)) out.push_back(*n);
    }
    r[p] = own;
  }
  return out;
}

double StrategyGrid::distance(std::size_t a, std::size_t b) const {
  double d = 0;
  for (std::size_t p = 0; p < levels_.size(); ++p) {
    if (levels_[p] < 2) continue;
    const double ra = ranks_[a][p], rb = ranks_[b][p];
    d += (ra > rb ? ra - rb : rb - ra) / static_cast<double>(levels_[p] - 1);
  }
  return d;
}

}  // namespace hone
