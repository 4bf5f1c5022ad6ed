#pragma once
// What the op builders of one import share: the config, the tensor parallelism, the checkpoint's
// quantization, the shapes file being written and a few facts the model's blocks leave for the end.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tuner/model_import/hf_config.hpp"
#include "tuner/model_import/quantization.hpp"
#include "tuner/model_import/shapes_draft.hpp"
#include "tuner/model_import/tensor_parallel.hpp"

namespace hone {

struct ImportContext {
  HfConfig cfg;
  TensorParallel tp;
  Quantization quant;
  ShapesDraft draft;
  std::int64_t max_tokens = 64;                 // the largest tokens bucket: state pools hold one slot per row
  std::vector<std::int64_t> context_buckets;    // attention's context lengths asked for
  std::int64_t max_context = 0;                 // the model's longest context (set by the attention block)
  bool residual_unfused = false;                // a norm ran without its residual add fused
  std::map<std::int64_t, std::vector<std::string>> act_order_inputs;  // K -> layers whose input is permuted
};

}  // namespace hone
