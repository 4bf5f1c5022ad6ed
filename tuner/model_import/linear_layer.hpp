#pragma once
// A linear layer at decode, as the family its weights take: gemv (bf16), gemv_fp8 (FP8 in blocks),
// gemv_w4 (INT4 in groups), or not tuned (a bias, or a scheme no family takes).
#include <cstdint>
#include <string>
#include <vector>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct LinearLayer {
  std::string name;                  // "qkv_proj"
  std::string module;                // the HF module of its weight ("model.layers.0.self_attn.q_proj"), for ignore lists
  std::int64_t N = 0, K = 0;         // per GPU
  std::vector<std::int64_t> parts;   // a fused layer's outputs per GPU (q, k, v), for block-scale checks
  bool row_parallel = false;         // its K is split over the GPUs (o_proj, down_proj)
  std::string bias;                  // non-empty: the layer adds a bias, for this reason (the config field)
  bool never_quantized = false;      // routers and gates: engines keep them in bf16 whatever the checkpoint
  std::string note;
};

void add_linear(ImportContext& c, const LinearLayer& layer);

}  // namespace hone
