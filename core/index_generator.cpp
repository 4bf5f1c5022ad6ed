#include "core/index_generator.hpp"

#include <algorithm>

namespace hone {

// Defined one per file in core/index/.
extern const IndexGenerator kSeqLensGenerator;
extern const IndexGenerator kBlockTableGenerator;
extern const IndexGenerator kPositionsGenerator;
extern const IndexGenerator kSlotsGenerator;
extern const IndexGenerator kExpertIdsGenerator;
extern const IndexGenerator kE4m3WeightsGenerator;
extern const IndexGenerator kBlockScalesGenerator;
extern const IndexGenerator kInt4WeightsGenerator;
extern const IndexGenerator kInt4ZerosGenerator;

const std::vector<const IndexGenerator*>& index_generators() {
  static const std::vector<const IndexGenerator*> all = [] {
    std::vector<const IndexGenerator*> v{&kSeqLensGenerator, &kBlockTableGenerator, &kPositionsGenerator, &kSlotsGenerator,
                                         &kExpertIdsGenerator, &kE4m3WeightsGenerator, &kBlockScalesGenerator,
                                         &kInt4WeightsGenerator, &kInt4ZerosGenerator};
    std::sort(v.begin(), v.end(), [](const IndexGenerator* a, const IndexGenerator* b) { return a->kind < b->kind; });
    return v;
  }();
  return all;
}

const IndexGenerator* find_index_generator(const std::string& kind) {
  for (const IndexGenerator* g : index_generators())
    if (g->kind == kind) return g;
  return nullptr;
}

}  // namespace hone
