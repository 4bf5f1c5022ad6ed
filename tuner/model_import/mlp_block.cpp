#include "tuner/model_import/mlp_block.hpp"

#include "tuner/model_import/linear_layer.hpp"

namespace hone {

void add_mlp(ImportContext& c, const MlpBlock& m) {
  const std::int64_t inter = c.tp.split(m.intermediate, m.intermediate_field);
  const std::string i = std::to_string(inter);
  const std::string where = m.layers.empty() ? "" : m.layers + ". ";
  const std::string per_gpu = c.tp.tp > 1 ? " (" + std::to_string(m.intermediate) + " over " + std::to_string(c.tp.tp) + " GPUs)" : "";
  add_linear(c, {m.prefix + "gate_up_proj", m.module + "gate_proj", 2 * inter, m.hidden, {inter, inter}, false, m.bias, false,
                 where + "gate_proj and up_proj fused (gate rows first, then up, as silu_mul reads them): N = 2*" + i + per_gpu});
  const OrderedJson act_dims = {{"tokens", "tokens"}, {"inter", inter}};
  if (m.act == "silu")
    c.draft.add({m.prefix + "mlp_act", "silu_mul", act_dims, OrderedJson::object(), where + "SwiGLU: silu(gate) * up at " + i});
  else
    c.draft.skip(m.prefix + "mlp_act", m.act + "_mul", act_dims,
                 "hidden_act '" + m.act + "': hone's silu_mul is SwiGLU's; no family computes " + m.act + "(gate) * up");
  add_linear(c, {m.prefix + "down_proj", m.module + "down_proj", m.hidden, inter, {}, true, m.bias, false, where + "K = " + i + per_gpu});
}

}  // namespace hone
