#pragma once
// Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranking gives an item
// 1 / (k + rank); the sums order the fused list. It needs no calibration between BM25 scores and
// cosine similarities, which live on unrelated scales.
#include <cstdint>
#include <vector>

namespace hone {

struct FusedItem {
  std::int64_t id = 0;
  double score = 0;
  std::vector<int> ranks;  // the item's rank (from 1) in each input ranking, 0 where absent
};

/// Fuses rankings (ids, best first). Ties go to the item with the better best rank, then the
/// lower id, so the order is deterministic.
std::vector<FusedItem> reciprocal_rank_fusion(const std::vector<std::vector<std::int64_t>>& rankings, double k);

}  // namespace hone
