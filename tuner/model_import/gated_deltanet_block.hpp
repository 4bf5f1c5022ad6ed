#pragma once
// Qwen3-Next's linear-attention layer at decode: in_proj_qkvz and in_proj_ba, the causal conv1d
// step, the gated delta rule step (gdn_gated_decode, or gdn_decode with the gating outside), the
// gated RMSNorm per value head, out_proj.
#include <cstdint>
#include <string>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct GatedDeltaNetBlock {
  std::string layers;                                  // which layers, for the notes
  std::string module = "model.layers.0.linear_attn.";
  std::int64_t hidden = 0, key_heads = 0, value_heads = 0, key_dim = 0, value_dim = 0, conv_width = 0;
  double eps = 1e-6;
};

GatedDeltaNetBlock gated_deltanet_from_config(const HfConfig& cfg);

void add_gated_deltanet(ImportContext& c, const GatedDeltaNetBlock& g);

}  // namespace hone
