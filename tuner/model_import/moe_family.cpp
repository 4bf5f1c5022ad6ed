// Mixture-of-experts decoders: Mixtral (Llama's attention, 8 experts) and Qwen3-MoE (Qwen3's
// attention; sparse layers chosen by decoder_sparse_step and mlp_only_layers).
#include "tuner/model_import/architectures.hpp"
#include "tuner/model_import/attention_block.hpp"
#include "tuner/model_import/mlp_block.hpp"
#include "tuner/model_import/moe_block.hpp"
#include "tuner/model_import/norm_ops.hpp"

namespace hone {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

}  // namespace

void mixtral_layers(ImportContext& c) {
  const HfConfig& cfg = c.cfg;
  AttentionBlock a = attention_from_config(cfg);
  MoeBlock m;
  m.module = "model.layers.0.block_sparse_moe.";
  m.expert_gate = "w1";
  m.expert_down = "w2";
  m.hidden = a.hidden;
  m.experts = cfg.integer("num_local_experts");
  m.top_k = cfg.integer("num_experts_per_tok");
  m.intermediate = cfg.integer("intermediate_size");
  m.intermediate_field = "intermediate_size";
  m.renormalize = true;   // Mixtral always renormalises its top-k weights
  if (cfg.text_or("hidden_act", "silu") != "silu") cfg.fail("hidden_act", "must be silu for Mixtral's experts (SwiGLU)");
  add_input_norms(c, a.hidden, a.eps, 0, "");
  add_attention(c, a);
  add_norm(c, {"post_attention_layernorm", a.hidden, a.eps, 0, true, ""});
  add_moe(c, m);
}

void qwen3_moe_layers(ImportContext& c) {
  const HfConfig& cfg = c.cfg;
  AttentionBlock a = attention_from_config(cfg);
  a.qk_norm = true;
  if (cfg.flag_or("attention_bias", false)) a.qkv_bias = a.o_bias = "attention_bias is true";
  const std::int64_t layers = cfg.integer("num_hidden_layers");
  const std::int64_t sparse = sparse_layer_count(cfg, layers);
  MoeBlock m;
  m.hidden = a.hidden;
  m.experts = cfg.integer("num_experts");
  m.top_k = cfg.integer("num_experts_per_tok");
  m.intermediate = cfg.integer("moe_intermediate_size");
  if (!cfg.has("norm_topk_prob")) cfg.fail("norm_topk_prob", "is missing, and the importer needs it (it decides the top-k's renormalisation)");
  m.renormalize = cfg.flag_or("norm_topk_prob", false);
  if (sparse < layers) m.layers = s(sparse) + " of " + s(layers) + " layers (MoE)";
  add_input_norms(c, a.hidden, a.eps, 0, "");
  add_attention(c, a);
  add_norm(c, {"post_attention_layernorm", a.hidden, a.eps, 0, true, ""});
  if (sparse > 0) add_moe(c, m);
  if (sparse < layers) {
    MlpBlock d;
    d.hidden = a.hidden;
    d.intermediate = cfg.integer("intermediate_size");
    d.layers = s(layers - sparse) + " of " + s(layers) + " layers (dense MLP: mlp_only_layers, decoder_sparse_step)";
    add_mlp(c, d);
  }
}

}  // namespace hone
