#include "tuner/model_import/gated_deltanet_block.hpp"

#include <cmath>

#include "tuner/model_import/linear_layer.hpp"

namespace hone {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

}  // namespace

GatedDeltaNetBlock gated_deltanet_from_config(const HfConfig& cfg) {
  GatedDeltaNetBlock g;
  g.hidden = cfg.integer("hidden_size");
  g.key_heads = cfg.integer("linear_num_key_heads");
  g.value_heads = cfg.integer("linear_num_value_heads");
  g.key_dim = cfg.integer("linear_key_head_dim");
  g.value_dim = cfg.integer("linear_value_head_dim");
  g.conv_width = cfg.integer("linear_conv_kernel_dim");
  g.eps = cfg.number("rms_norm_eps");
  if (g.value_heads % g.key_heads != 0) cfg.fail("linear_num_value_heads", "must be a multiple of linear_num_key_heads");
  return g;
}

void add_gated_deltanet(ImportContext& c, const GatedDeltaNetBlock& g) {
  const std::int64_t h = c.tp.split(g.key_heads, "linear_num_key_heads");
  const std::int64_t hv = c.tp.split(g.value_heads, "linear_num_value_heads");
  const std::int64_t kd = g.key_dim, vd = g.value_dim;
  const std::int64_t conv_dim = 2 * h * kd + hv * vd;
  const std::int64_t slots = c.max_tokens;
  const std::string where = g.layers.empty() ? "" : g.layers + ". ";
  const std::string heads = s(h) + " key heads and " + s(hv) + " value heads of " + s(kd) +
                            (c.tp.tp > 1 ? " per GPU (" + s(g.key_heads) + " and " + s(g.value_heads) + " over " + s(c.tp.tp) + ")" : "");

  add_linear(c, {"linear_attn.in_proj_qkvz", g.module + "in_proj_qkvz", 2 * h * kd + 2 * hv * vd, g.hidden,
                 {h * kd, h * kd, hv * vd, hv * vd}, false, "", false,
                 where + "q, k, v and the output gate z: N = 2*" + s(h) + "*" + s(kd) + " + 2*" + s(hv) + "*" + s(vd) + "; " + heads});
  add_linear(c, {"linear_attn.in_proj_ba", g.module + "in_proj_ba", 2 * hv, g.hidden, {hv, hv}, false, "", false,
                 where + "beta and the decay input a, one each per value head: N = 2*" + s(hv)});
  c.draft.add({"linear_attn.conv1d", "causal_conv1d_update", {{"B", "tokens"}, {"D", conv_dim}, {"W", g.conv_width}, {"SLOTS", slots}},
               OrderedJson::object(),
               where + "the causal conv1d (kernel " + s(g.conv_width) + ") and SiLU on q, k and v: D = 2*" + s(h) + "*" + s(kd) + " + " + s(hv) +
                   "*" + s(vd) + "; a pool of " + s(slots) + " conv states, one per row of the largest decode batch tuned "
                   "(engines size it by their max_num_seqs)"});
  const double scale = 1.0 / std::sqrt(static_cast<double>(kd));
  if (c.draft.has("gdn_gated_decode")) {
    c.draft.add({"linear_attn.recurrent_step", "gdn_gated_decode",
                 {{"B", "tokens"}, {"H", h}, {"HV", hv}, {"K", kd}, {"V", vd}, {"SLOTS", slots}}, {{"scale", scale}},
                 where + "the gated delta rule step with its gating and the l2 norms of q and k, on the conv's packed output; "
                         "a pool of " + s(slots) + " states [HV, V, K]; scale = 1/sqrt(" + s(kd) + ")"});
  } else {
    c.draft.add({"linear_attn.recurrent_step", "gdn_decode", {{"B", "tokens"}, {"H", h}, {"HV", hv}, {"K", kd}, {"V", vd}}, {{"scale", scale}},
                 where + "one decode step per sequence: B = tokens; scale = 1/sqrt(" + s(kd) + "). The model L2-normalises q and k "
                         "and computes g and beta first; the gdn_decode contract takes them prepared"});
    c.draft.skip("linear_attn.gating", "gdn_gated_decode", {{"B", "tokens"}, {"H", h}, {"HV", hv}, {"K", kd}, {"V", vd}},
                 "g = -exp(A_log) * softplus(a + dt_bias), beta = sigmoid(b) and the l2 norms of q and k run outside gdn_decode; "
                 "gdn_gated_decode fuses them into the step, and hone has no such family yet");
  }
  c.draft.add({"linear_attn.norm", "rmsnorm_gated", {{"rows", tokens_times(hv)}, {"D", vd}}, {{"eps", g.eps}},
               where + "the gated RMSNorm per value head: rmsnorm(o) * w * silu(z), rows = tokens*" + s(hv) + " (plain w)"});
  add_linear(c, {"linear_attn.out_proj", g.module + "out_proj", g.hidden, hv * vd, {}, true, "", false,
                 where + "K = " + s(hv) + "*" + s(vd)});
}

}  // namespace hone
