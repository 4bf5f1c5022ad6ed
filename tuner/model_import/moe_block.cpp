#include "tuner/model_import/moe_block.hpp"

#include <algorithm>

#include "tuner/model_import/linear_layer.hpp"
#include "tuner/model_import/mlp_block.hpp"

namespace hone {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

}  // namespace

std::int64_t sparse_layer_count(const HfConfig& cfg, std::int64_t layers) {
  const std::int64_t step = cfg.integer_or("decoder_sparse_step", 1);
  const auto dense_only = cfg.integers_or("mlp_only_layers");
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < layers; ++i)
    if ((i + 1) % step == 0 && std::find(dense_only.begin(), dense_only.end(), i) == dense_only.end()) ++n;
  return n;
}

void add_moe(ImportContext& c, const MoeBlock& m) {
  const std::string where = m.layers.empty() ? "" : m.layers + ". ";
  add_linear(c, {"moe.router", m.module + "gate", m.experts, m.hidden, {}, false, "", true,
                 where + "router logits over the " + s(m.experts) + " experts; unsharded and unquantized on every GPU "
                         "(vLLM's ReplicatedLinear)"});
  const OrderedJson topk_dims = {{"tokens", "tokens"}, {"E", m.experts}, {"TOPK", m.top_k}, {"renormalize", m.renormalize ? 1 : 0}};
  c.draft.add({"moe.topk", "moe_topk_softmax", topk_dims, OrderedJson::object(),
               where + "softmax over " + s(m.experts) + " logits, the top " + s(m.top_k) +
                   (m.renormalize ? ", renormalised to sum to 1" : ", not renormalised (norm_topk_prob false)")});

  // vLLM's tensor-parallel MoE (no expert parallelism) gives every GPU all experts, each with a
  // slice of the intermediate dim: w13 split over its outputs, w2 over its K.
  const std::int64_t inter = c.tp.split(m.intermediate, m.intermediate_field);
  const WeightFormat experts = c.quant.of(m.module + "experts.0." + m.expert_gate);
  const OrderedJson moe_dims = {{"tokens", "tokens"}, {"E", m.experts}, {"TOPK", m.top_k}, {"N", inter}, {"K", m.hidden}};
  const std::string split = c.tp.tp > 1 ? " (" + s(m.intermediate) + " over " + s(c.tp.tp) + " GPUs; every GPU holds all experts)" : "";
  if (experts.kind == WeightKind::bf16 && c.draft.has("moe_gate_up") && c.draft.has("moe_down")) {
    c.draft.add({"moe.gate_up", "moe_gate_up", moe_dims, OrderedJson::object(),
                 where + "the chosen experts' gate and up rows (w13 [E, 2N, K]) with silu(gate)*up: N = " + s(inter) + split});
    c.draft.add({"moe.down", "moe_down", moe_dims, OrderedJson::object(),
                 where + "the chosen experts' down (w2 [E, K, N]) and their weighted sum: N = " + s(inter) + split});
  } else {
    // One expert as dense layers: what each chosen expert computes, at M = tokens, an upper bound
    // on the rows one expert sees (tokens x top_k / experts on average).
    const std::string suffix = experts.kind == WeightKind::bf16 ? "" : " for " + experts.scheme;
    const std::string why = experts.kind == WeightKind::bf16
                                ? "the fused MoE kernels need both moe_gate_up and moe_down, and hone lacks them; each expert is listed as dense layers instead"
                                : "the experts' weights are quantized (" + experts.scheme + ") and the MoE families take bf16 weights; "
                                  "each expert is listed as dense layers instead";
    c.draft.skip("moe.gate_up", "moe_gate_up" + suffix, moe_dims, why);
    c.draft.skip("moe.down", "moe_down" + suffix, moe_dims, why);
    add_linear(c, {"moe.expert_gate_up_proj", m.module + "experts.0." + m.expert_gate, 2 * inter, m.hidden, {inter, inter}, false, "", false,
                   where + "one routed expert's gate and up rows fused: N = 2*" + s(inter) + split + ". M = tokens is an upper bound on the "
                   "tokens routed to one expert (each token picks " + s(m.top_k) + " of " + s(m.experts) + ")"});
    c.draft.add({"moe.expert_act", "silu_mul", {{"tokens", "tokens"}, {"inter", inter}}, OrderedJson::object(),
                 where + "one routed expert's SwiGLU at " + s(inter)});
    add_linear(c, {"moe.expert_down_proj", m.module + "experts.0." + m.expert_down, m.hidden, inter, {}, true, "", false,
                   where + "one routed expert's down_proj: K = " + s(inter) + "; M = tokens is an upper bound, as above"});
  }

  if (m.shared_intermediate > 0) {
    add_mlp(c, {"moe.shared_expert_", m.module + "shared_expert.",
                (m.layers.empty() ? "" : m.layers + ", ") + "the shared expert, which every token runs", m.hidden,
                m.shared_intermediate, "shared_expert_intermediate_size", "silu", ""});
    if (m.shared_gate) {
      add_linear(c, {"moe.shared_expert_gate", m.module + "shared_expert_gate", 1, m.hidden, {}, false, "", true,
                     where + "Linear(hidden_size, 1): the shared expert's sigmoid gate, unsharded (vLLM's ReplicatedLinear)"});
      c.draft.skip("moe.shared_expert_combine", "sigmoid_gate_mul", {{"tokens", "tokens"}, {"width", m.hidden}},
                   "out = routed + sigmoid(gate) * shared: an elementwise op no family of hone covers");
    }
  }
}

}  // namespace hone
