#include "knowledge_db/rank_fusion.hpp"

#include <algorithm>
#include <climits>
#include <map>

namespace hone {

std::vector<FusedItem> reciprocal_rank_fusion(const std::vector<std::vector<std::int64_t>>& rankings, double k) {
  std::map<std::int64_t, FusedItem> items;
  for (std::size_t list = 0; list < rankings.size(); ++list) {
    for (std::size_t i = 0; i < rankings[list].size(); ++i) {
      FusedItem& item = items[rankings[list][i]];
      item.id = rankings[list][i];
      if (item.ranks.empty()) item.ranks.assign(rankings.size(), 0);
      if (item.ranks[list]) continue;  // an id listed twice counts once, at its better rank
      item.ranks[list] = static_cast<int>(i + 1);
      item.score += 1.0 / (k + static_cast<double>(i + 1));
    }
  }
  auto best_rank = [](const FusedItem& f) {
    int best = INT_MAX;
    for (int r : f.ranks)
      if (r) best = std::min(best, r);
    return best;
  };
  std::vector<FusedItem> out;
  for (auto& [id, item] : items) out.push_back(std::move(item));
  std::stable_sort(out.begin(), out.end(), [&](const FusedItem& a, const FusedItem& b) {
    if (a.score != b.score) return a.score > b.score;
    if (best_rank(a) != best_rank(b)) return best_rank(a) < best_rank(b);
    return a.id < b.id;
  });
  return out;
}

}  // namespace hone
