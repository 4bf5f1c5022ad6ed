// Qwen3-Next: a hybrid of Gated DeltaNet (linear attention) layers and gated full-attention
// layers, every layer's MLP a mixture of experts with a shared expert; zero-centred RMSNorms.
#include "tuner/model_import/architectures.hpp"
#include "tuner/model_import/attention_block.hpp"
#include "tuner/model_import/gated_deltanet_block.hpp"
#include "tuner/model_import/mlp_block.hpp"
#include "tuner/model_import/moe_block.hpp"
#include "tuner/model_import/norm_ops.hpp"

namespace hone {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

// Full-attention layers: config.layer_types when given, else every full_attention_interval-th.
std::int64_t full_attention_layers(const HfConfig& cfg, std::int64_t layers) {
  const auto& types = cfg.raw("layer_types");
  if (!types.is_null()) {
    if (!types.is_array() || static_cast<std::int64_t>(types.size()) != layers)
      cfg.fail("layer_types", "must list one type per layer (num_hidden_layers)");
    std::int64_t full = 0;
    for (const auto& t : types) {
      if (t == "full_attention") ++full;
      else if (t != "linear_attention") cfg.fail("layer_types", "holds " + t.dump() + ", not linear_attention or full_attention");
    }
    return full;
  }
  return layers / cfg.integer("full_attention_interval");
}

}  // namespace

void qwen3_next_layers(ImportContext& c) {
  const HfConfig& cfg = c.cfg;
  const std::int64_t layers = cfg.integer("num_hidden_layers");
  const std::int64_t full = full_attention_layers(cfg, layers);
  const std::int64_t linear = layers - full;
  const std::int64_t sparse = sparse_layer_count(cfg, layers);
  const std::int64_t hidden = cfg.integer("hidden_size");
  const double eps = cfg.number("rms_norm_eps");

  add_input_norms(c, hidden, eps, 1, "every layer (linear and full attention)");
  if (linear > 0) {
    GatedDeltaNetBlock g = gated_deltanet_from_config(cfg);
    g.layers = s(linear) + " of " + s(layers) + " layers (Gated DeltaNet)";
    add_gated_deltanet(c, g);
  }
  if (full > 0) {
    AttentionBlock a = attention_from_config(cfg);
    a.prefix = "full_attn.";
    a.module = "model.layers." + s(layers > 3 ? 3 : 0) + ".self_attn.";
    a.layers = s(full) + " of " + s(layers) + " layers (gated full attention)";
    a.qk_norm = a.gated_q = true;
    a.w_offset = 1;
    if (cfg.flag_or("attention_bias", false)) a.qkv_bias = a.o_bias = "attention_bias is true";
    add_attention(c, a);
  }
  add_norm(c, {"post_attention_layernorm", hidden, eps, 1, true, "every layer"});
  if (sparse > 0) {
    MoeBlock m;
    m.layers = sparse == layers ? "every layer" : s(sparse) + " of " + s(layers) + " layers (MoE)";
    m.hidden = hidden;
    m.experts = cfg.integer("num_experts");
    m.top_k = cfg.integer("num_experts_per_tok");
    m.intermediate = cfg.integer("moe_intermediate_size");
    if (!cfg.has("norm_topk_prob")) cfg.fail("norm_topk_prob", "is missing, and the importer needs it (it decides the top-k's renormalisation)");
    m.renormalize = cfg.flag_or("norm_topk_prob", false);
    m.shared_intermediate = cfg.integer_or("shared_expert_intermediate_size", 0);
    m.shared_gate = m.shared_intermediate > 0;
    add_moe(c, m);
  }
  if (sparse < layers) {
    MlpBlock d;
    d.hidden = hidden;
    d.intermediate = cfg.integer("intermediate_size");
    d.layers = s(layers - sparse) + " of " + s(layers) + " layers (dense MLP)";
    add_mlp(c, d);
  }
}

}  // namespace hone
