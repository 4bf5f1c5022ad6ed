// Dense decoders: Llama, Mistral, Qwen2 (a bias on q, k and v) and Qwen3 (per-head q/k norms).
#include "tuner/model_import/architectures.hpp"
#include "tuner/model_import/attention_block.hpp"
#include "tuner/model_import/mlp_block.hpp"
#include "tuner/model_import/norm_ops.hpp"

namespace hone {

namespace {

MlpBlock dense_mlp(const HfConfig& cfg) {
  MlpBlock m;
  m.hidden = cfg.integer("hidden_size");
  m.intermediate = cfg.integer("intermediate_size");
  m.act = cfg.text_or("hidden_act", "silu");
  if (cfg.flag_or("mlp_bias", false)) m.bias = "mlp_bias is true";
  return m;
}

void dense_layers(ImportContext& c, const AttentionBlock& a, const MlpBlock& m) {
  add_input_norms(c, a.hidden, a.eps, 0, "");
  add_attention(c, a);
  add_norm(c, {"post_attention_layernorm", a.hidden, a.eps, 0, true, ""});
  add_mlp(c, m);
}

AttentionBlock llama_attention(const HfConfig& cfg) {
  AttentionBlock a = attention_from_config(cfg);
  if (cfg.flag_or("attention_bias", false)) a.qkv_bias = a.o_bias = "attention_bias is true";
  return a;
}

}  // namespace

void llama_layers(ImportContext& c) { dense_layers(c, llama_attention(c.cfg), dense_mlp(c.cfg)); }

void qwen2_layers(ImportContext& c) {
  AttentionBlock a = attention_from_config(c.cfg);
  a.qkv_bias = "Qwen2's q_proj, k_proj and v_proj always carry a bias";
  dense_layers(c, a, dense_mlp(c.cfg));
}

void qwen3_layers(ImportContext& c) {
  AttentionBlock a = llama_attention(c.cfg);
  a.qk_norm = true;
  dense_layers(c, a, dense_mlp(c.cfg));
}

}  // namespace hone
