#pragma once
// The self-attention of a decode step: fused qkv projection, q/k norms and the rotary embedding
// (qk_norm_rope, rope, or rmsnorm per head), paged attention over the KV cache, the output gate
// where the model has one, o_proj.
#include <cstdint>
#include <string>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct AttentionBlock {
  std::string prefix;                  // op names: "" or "full_attn."
  std::string module = "model.layers.0.self_attn.";   // HF module path of its weights
  std::string layers;                  // which layers run it, for the notes ("" = every layer)
  std::int64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;   // model totals
  bool qk_norm = false;                // per-head RMSNorm on q and k before the rotary (Qwen3)
  bool gated_q = false;                // q_proj also yields a sigmoid output gate per head (Qwen3-Next)
  std::string qkv_bias, o_bias;        // why the projection adds a bias (the config field); empty: none
  double eps = 1e-6, w_offset = 0;     // of the q/k norms
  std::int64_t rotary_dim = 0, max_positions = 0;
  std::int64_t window = 0;             // sliding window, 0: none
};

/// Heads, head_dim (given, or hidden / heads), rotary dims, positions and sliding window from the
/// config; the caller sets the model's own flags (norms, gate, biases).
AttentionBlock attention_from_config(const HfConfig& cfg);

void add_attention(ImportContext& c, const AttentionBlock& a);

}  // namespace hone
