#pragma once
// A mixture-of-experts MLP at decode: the router, the top-k softmax, the chosen experts' gate_up
// and down (moe_gate_up / moe_down where hone has them, else one expert as dense layers), and a
// shared expert with its sigmoid gate where the model has one.
#include <cstdint>
#include <string>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct MoeBlock {
  std::string layers;                          // which layers, for the notes
  std::string module = "model.layers.0.mlp.";  // HF module path: router "gate", experts "experts.0.gate_proj"
  std::string expert_gate = "gate_proj", expert_down = "down_proj";   // Mixtral: w1, w2
  std::int64_t hidden = 0, experts = 0, top_k = 0, intermediate = 0;
  std::string intermediate_field = "moe_intermediate_size";
  bool renormalize = true;                     // top-k weights divided by their sum (norm_topk_prob)
  std::int64_t shared_intermediate = 0;        // 0: no shared expert
  bool shared_gate = false;                    // the shared expert's output is scaled by sigmoid(x w)
};

void add_moe(ImportContext& c, const MoeBlock& m);

/// How many of the `layers` decoder layers are sparse, as Qwen's MoE configs say: every
/// decoder_sparse_step-th layer not in mlp_only_layers (the rest run the dense MLP).
std::int64_t sparse_layer_count(const HfConfig& cfg, std::int64_t layers);

}  // namespace hone
