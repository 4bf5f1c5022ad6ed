#pragma once
// The gated MLP of a decode step: gate_up (fused, gate rows first), the activation times up, down.
#include <cstdint>
#include <string>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct MlpBlock {
  std::string prefix;                        // op names: "" or "moe.shared_expert_"
  std::string module = "model.layers.0.mlp.";
  std::string layers;                        // which layers run it, for the notes
  std::int64_t hidden = 0, intermediate = 0; // model totals
  std::string intermediate_field = "intermediate_size";
  std::string act = "silu";                  // hidden_act
  std::string bias;                          // why its projections add a bias; empty: none
};

void add_mlp(ImportContext& c, const MlpBlock& m);

}  // namespace hone
