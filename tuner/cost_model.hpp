#pragma once
// A learned cost model: gradient-boosted regression trees (XGBoost, as TVM's Ansor uses) from a
// point's features to its (log) time. Fitted from scratch on what was measured; deterministic for
// a seed (one thread, the row sampling seeded).
#include <cstdint>
#include <memory>
#include <vector>

namespace hone {

/// Rows of features, in the form the model reads them.
class FeatureRows {
 public:
  /// `data` is row-major, rows x cols.
  FeatureRows(const std::vector<float>& data, std::size_t rows, std::size_t cols);
  ~FeatureRows();
  FeatureRows(const FeatureRows&) = delete;
  FeatureRows& operator=(const FeatureRows&) = delete;
  std::size_t rows() const { return rows_; }
  void* handle() const { return handle_; }

 private:
  void* handle_ = nullptr;
  std::size_t rows_ = 0;
};

struct CostModelOptions {
  int rounds = 60;         // trees
  int max_depth = 6;
  double learning_rate = 0.3;
  double min_child_weight = 1;
  // Each tree sees a random share of the rows, drawn anew in every fit: successive fits disagree
  // where the data is thin, and a search that follows them explores there (the effect of a
  // posterior draw in Thompson sampling, at no extra cost). On the recorded spaces 0.8 found the
  // optimum sooner than 1 (README, "Search strategies").
  double subsample = 0.8;
  std::uint64_t seed = 0;  // of the first fit; fit k uses seed + k
};

class CostModel {
 public:
  explicit CostModel(CostModelOptions options = {});
  ~CostModel();
  CostModel(const CostModel&) = delete;
  CostModel& operator=(const CostModel&) = delete;

  /// Fits the trees to `targets`, one per row, replacing any earlier fit.
  void fit(const FeatureRows& rows, const std::vector<float>& targets);
  /// The prediction for every row; fit must have been called.
  std::vector<float> predict(const FeatureRows& rows) const;

 private:
  CostModelOptions options_;
  std::uint64_t fits_ = 0;
  void* booster_ = nullptr;
};

}  // namespace hone
