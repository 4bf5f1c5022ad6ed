#include "tuner/model_import/attention_block.hpp"

#include <cmath>

#include "tuner/model_import/linear_layer.hpp"
#include "tuner/model_import/norm_ops.hpp"

namespace hone {

namespace {

constexpr std::int64_t kPage = 16;   // vLLM's default KV block size (FlashAttention and FlashInfer backends)

std::string s(std::int64_t v) { return std::to_string(v); }

// The rotary table's length: the model's positions, times the factor of a scaling that stretches
// the table (vLLM's linear, dynamic and YaRN rotary embeddings build it that long).
std::int64_t rotary_positions(const HfConfig& cfg) {
  const std::int64_t max_pos = cfg.integer("max_position_embeddings");
  const auto& rs = cfg.raw("rope_scaling");
  if (!rs.is_object()) return max_pos;
  const std::string type = rs.value("rope_type", rs.value("type", std::string()));
  const double factor = rs.contains("factor") && rs["factor"].is_number() ? rs["factor"].get<double>() : 1.0;
  if (type == "yarn") {
    const std::int64_t original = rs.value("original_max_position_embeddings", max_pos);
    return static_cast<std::int64_t>(std::llround(static_cast<double>(original) * factor));
  }
  if (type == "linear" || type == "dynamic") return static_cast<std::int64_t>(std::llround(static_cast<double>(max_pos) * factor));
  return max_pos;
}

}  // namespace

AttentionBlock attention_from_config(const HfConfig& cfg) {
  AttentionBlock a;
  a.hidden = cfg.integer("hidden_size");
  a.heads = cfg.integer("num_attention_heads");
  a.kv_heads = cfg.integer_or("num_key_value_heads", a.heads);
  if (cfg.has("head_dim")) {
    a.head_dim = cfg.integer("head_dim");
  } else {
    if (a.hidden % a.heads != 0) cfg.fail("head_dim", "is missing and hidden_size is not a multiple of num_attention_heads");
    a.head_dim = a.hidden / a.heads;
  }
  if (a.heads % a.kv_heads != 0) cfg.fail("num_key_value_heads", "must divide num_attention_heads (grouped-query attention)");
  const double partial = cfg.number_or("partial_rotary_factor", 1.0);
  a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * partial);
  if (a.rotary_dim <= 0 || a.rotary_dim % 2 != 0) cfg.fail("partial_rotary_factor", "gives an odd or empty rotary dim");
  a.max_positions = rotary_positions(cfg);
  a.eps = cfg.number("rms_norm_eps");
  // Mistral writes sliding_window alone; Qwen2 and Qwen3 write it with use_sliding_window.
  if (cfg.has("sliding_window") && cfg.flag_or("use_sliding_window", true)) a.window = cfg.integer("sliding_window");
  return a;
}

void add_attention(ImportContext& c, const AttentionBlock& a) {
  const TensorParallel& tp = c.tp;
  const std::int64_t hq = tp.split(a.heads, "num_attention_heads");
  const std::int64_t hkv = tp.kv_heads(a.kv_heads, "num_key_value_heads");
  const std::int64_t d = a.head_dim;
  const std::int64_t q_width = hq * d * (a.gated_q ? 2 : 1);
  const std::int64_t row = q_width + 2 * hkv * d;
  const std::string where = a.layers.empty() ? "" : a.layers + ". ";
  std::string heads_note = s(hq) + " q heads and " + s(hkv) + " kv heads of " + s(d);
  if (tp.tp > 1)
    heads_note += " per GPU (" + s(a.heads) + " and " + s(a.kv_heads) + " over " + s(tp.tp) + " GPUs" +
                  (tp.kv_replicas(a.kv_heads) > 1 ? ", each kv head on " + s(tp.kv_replicas(a.kv_heads)) + " GPUs" : "") + ")";

  add_linear(c, {a.prefix + "qkv_proj", a.module + "q_proj", row, a.hidden, {q_width, hkv * d, hkv * d}, false, a.qkv_bias, false,
                 where + "q_proj, k_proj, v_proj fused: N = " + (a.gated_q ? s(hq) + "*" + s(d) + "*2 (each q head followed by its output gate)"
                                                                            : s(hq) + "*" + s(d)) +
                     " + 2*" + s(hkv) + "*" + s(d) + " = " + s(row) + "; " + heads_note});

  const OrderedJson rope_dims = {{"tokens", "tokens"}, {"HQ", hq}, {"HKV", hkv}, {"D", d}, {"ROT", a.rotary_dim}, {"MAXPOS", a.max_positions}};
  const std::string rope_note = "NeoX rotary over the first " + s(a.rotary_dim) + " of " + s(d) + " dims of each q and k head, a table of " +
                                s(a.max_positions) + " positions";
  if (a.qk_norm && c.draft.has("qk_norm_rope")) {
    c.draft.add({a.prefix + "qk_norm_rope",
                 "qk_norm_rope",
                 {{"tokens", "tokens"}, {"HQ", hq}, {"HKV", hkv}, {"D", d}, {"QH", a.gated_q ? 2 * d : d}, {"ROT", a.rotary_dim}, {"MAXPOS", a.max_positions}},
                 {{"eps", a.eps}, {"w_offset", a.w_offset}},
                 where + "per-head RMSNorm of q and k, then the rotary, in place on the qkv row; " + rope_note +
                     (a.gated_q ? "; q heads are 2*D apart (their gates after them)" : "")});
  } else {
    if (a.qk_norm) {
      const std::string zc = a.w_offset != 0 ? "; " + zero_centred_note() : "";
      c.draft.add({a.prefix + "q_norm", "rmsnorm", {{"tokens", tokens_times(hq)}, {"hidden", d}}, {{"eps", a.eps}},
                   where + "per-head RMSNorm over head_dim on the " + s(hq) + " query heads: rows = tokens*" + s(hq) +
                       " (qk_norm_rope, which fuses it with the rotary, is not in hone yet)" + zc});
      c.draft.add({a.prefix + "k_norm", "rmsnorm", {{"tokens", tokens_times(hkv)}, {"hidden", d}}, {{"eps", a.eps}},
                   where + "per-head RMSNorm over head_dim on the " + s(hkv) + " key heads: rows = tokens*" + s(hkv) + zc});
    }
    if (!a.gated_q && c.draft.has("rope")) {
      c.draft.add({a.prefix + "rope", "rope", rope_dims, OrderedJson::object(),
                   where + rope_note + (a.qk_norm ? " (after the q/k norms above)" : "")});
    } else {
      const std::string needed = a.qk_norm ? "qk_norm_rope" : "rope";
      c.draft.skip(a.prefix + "rope", needed, rope_dims,
                   a.gated_q ? "the rotary on q heads that carry their gate (2*D apart) is qk_norm_rope's; hone has no such family yet"
                             : "hone has no " + needed + " family yet: " + rope_note);
    }
  }

  c.max_context = c.max_context ? std::min(c.max_context, a.max_positions) : a.max_positions;
  const OrderedJson attn_dims = {{"batch", "tokens"},
                                 {"HQ", hq},
                                 {"HKV", hkv},
                                 {"D", d},
                                 {"PAGE", kPage},
                                 {"MAXP", "(context+" + s(kPage - 1) + ")/" + s(kPage)},
                                 {"q_stride", a.gated_q ? hq * d : row},
                                 {"page_stride", kPage * hkv * d}};
  std::int64_t longest = 0;
  for (auto b : c.context_buckets)
    if (b <= c.max_context) longest = std::max(longest, b);
  if (longest == 0) longest = c.max_context;
  if (a.window > 0 && a.window < longest) {
    c.draft.skip(a.prefix + "attention", "attention_decode with a sliding window", attn_dims,
                 "the model attends to the last " + s(a.window) + " tokens only (sliding_window), and the contexts tuned reach " +
                     s(longest) + "; attention_decode attends to the whole sequence");
  } else {
    c.draft.add({a.prefix + "attention", "attention_decode", attn_dims, {{"scale", 1.0 / std::sqrt(static_cast<double>(d))}},
                 where + "paged decode attention, one new token per sequence: batch = tokens, pages of " + s(kPage) +
                     " tokens (vLLM's default block size) in vLLM's FlashAttention layout, MAXP pages per sequence" +
                     (a.gated_q ? "; q is taken out of the gated layout first (q_stride = HQ*D), as vLLM does"
                                : "; q is a view into the qkv row (q_stride = its length)") +
                     (a.window > 0 ? "; sliding_window " + s(a.window) + " is not shorter than any context tuned, so it changes nothing" : "")});
  }

  if (a.gated_q)
    c.draft.skip(a.prefix + "attn_output_gate", "sigmoid_gate_mul", {{"tokens", "tokens"}, {"width", hq * d}},
                 "out *= sigmoid(gate) on the attention output before o_proj: an elementwise op no family of hone covers");
  add_linear(c, {a.prefix + "o_proj", a.module + "o_proj", a.hidden, hq * d, {}, true, a.o_bias, false,
                 where + "K = " + s(hq) + "*" + s(d) + (tp.tp > 1 ? " (row-parallel: the heads of this GPU)" : "")});
}

}  // namespace hone
