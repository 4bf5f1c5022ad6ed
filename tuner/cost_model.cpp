#include "tuner/cost_model.hpp"

#include <xgboost/c_api.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace hone {

namespace {

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("xgboost: ") + what + ": " + XGBGetLastError());
}

}  // namespace

FeatureRows::FeatureRows(const std::vector<float>& data, std::size_t rows, std::size_t cols) : rows_(rows) {
  if (data.size() != rows * cols) throw std::invalid_argument("FeatureRows: data is not rows x cols");
  DMatrixHandle h = nullptr;
  // NaN marks a missing value; hone's features are never missing, so any NaN is one.
  check(XGDMatrixCreateFromMat(data.data(), rows, cols, std::numeric_limits<float>::quiet_NaN(), &h), "DMatrix");
  handle_ = h;
}

FeatureRows::~FeatureRows() {
  if (handle_) XGDMatrixFree(handle_);
}

CostModel::CostModel(CostModelOptions options) : options_(options) {}

CostModel::~CostModel() {
  if (booster_) XGBoosterFree(booster_);
}

void CostModel::fit(const FeatureRows& rows, const std::vector<float>& targets) {
  if (targets.size() != rows.rows()) throw std::invalid_argument("CostModel::fit: one target per row");
  check(XGDMatrixSetFloatInfo(rows.handle(), "label", targets.data(), targets.size()), "labels");
  if (booster_) XGBoosterFree(booster_);
  booster_ = nullptr;
  DMatrixHandle train[] = {rows.handle()};
  BoosterHandle b = nullptr;
  check(XGBoosterCreate(train, 1, &b), "booster");
  booster_ = b;
  const std::pair<const char*, std::string> params[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "exact"},  // exact splits: the data is small, and the result does not depend on binning
      {"nthread", "1"},          // deterministic, and the replay benchmark runs its seeds in parallel instead
      {"verbosity", "0"},
      {"max_depth", std::to_string(options_.max_depth)},
      {"eta", std::to_string(options_.learning_rate)},
      {"min_child_weight", std::to_string(options_.min_child_weight)},
      {"subsample", std::to_string(options_.subsample)},
      // A new seed each fit: successive fits see different samples of the data.
      {"seed", std::to_string((options_.seed + fits_++) % 2147483647)},
  };
  for (const auto& [k, v] : params) check(XGBoosterSetParam(b, k, v.c_str()), k);
  for (int i = 0; i < options_.rounds; ++i) check(XGBoosterUpdateOneIter(b, i, rows.handle()), "training");
}

std::vector<float> CostModel::predict(const FeatureRows& rows) const {
  if (!booster_) throw std::logic_error("CostModel::predict before fit");
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(XGBoosterPredictFromDMatrix(booster_, rows.handle(),
                                    R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})",
                                    &shape, &dim, &out),
        "prediction");
  return std::vector<float>(out, out + rows.rows());
}

}  // namespace hone
