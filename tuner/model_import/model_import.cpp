#include "tuner/model_import/model_import.hpp"

#include <algorithm>
#include <cctype>

#include "core/input_error.hpp"
#include "core/model_shapes.hpp"
#include "tuner/model_import/architectures.hpp"
#include "tuner/model_import/linear_layer.hpp"
#include "tuner/model_import/norm_ops.hpp"

namespace hone {

namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

const Architecture& find_architecture(const HfConfig& cfg) {
  const auto& list = cfg.raw("architectures");
  if (list.is_null()) cfg.fail("architectures", "is missing: the importer needs it to know the model's layers");
  if (!list.is_array() || list.empty() || !list[0].is_string()) cfg.fail("architectures", "must be a list naming the model class");
  const std::string name = list[0].get<std::string>();
  for (const auto& a : architectures())
    if (a.name == name) return a;
  std::string known;
  for (const auto& a : architectures()) known += (known.empty() ? "" : ", ") + a.name;
  cfg.fail("architectures", "names " + name + ", which the importer does not know (it knows " + known + ")");
}

std::string default_name(const ImportOptions& o, const HfConfig& cfg) {
  std::filesystem::path p = std::filesystem::absolute(o.source).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::string base = std::filesystem::is_directory(o.source) ? p.filename().string()
                     : cfg.file.filename() == "config.json" ? p.parent_path().filename().string()
                                                            : p.stem().string();
  std::transform(base.begin(), base.end(), base.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return o.tp > 1 ? base + "-tp" + s(o.tp) : base;
}

std::vector<std::int64_t> checked_buckets(const std::vector<std::int64_t>& b, const std::string& flag) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b[i] <= 0 || (i && b[i] <= b[i - 1])) throw InputError(flag + " must be positive and increasing");
  return b;
}

// The ops around the decoder layers, and what the layers left for the end.
void add_model_ends(ImportContext& c, const Architecture& arch, std::int64_t hidden, double eps) {
  const std::int64_t vocab = c.cfg.integer("vocab_size");
  add_norm(c, {"final_norm", hidden, eps, arch.norm_offset, true, "model.norm, once per step after the last layer"});
  const bool tied = c.cfg.flag_or("tie_word_embeddings", false);
  const std::int64_t rows = c.tp.vocab(vocab);
  add_linear(c, {"lm_head", "lm_head", rows, hidden, {}, false, "", !c.quant.lm_head,
                 "once per step; " + std::string(tied ? "tie_word_embeddings: it reads the embedding table [vocab_size, hidden_size]"
                                                       : "tie_word_embeddings is false: its own [vocab_size, hidden_size] weight") +
                     (rows * c.tp.tp != vocab ? "; vocab_size " + s(vocab) + " padded to " + s(rows * c.tp.tp) + " (a multiple of 64, as vLLM pads it)" : "") +
                     (c.tp.tp > 1 ? "; split over the vocabulary: " + s(rows) + " rows per GPU" : "")});
  if (c.residual_unfused)
    c.draft.skip("residual_add", "fused_add_rmsnorm", {{"tokens", "tokens"}, {"hidden", hidden}},
                 "the residual add before every norm but layer 0's input norm runs as its own elementwise kernel; "
                 "fused_add_rmsnorm fuses it into the norm, and hone has no such family yet");
  for (const auto& [k, layers] : c.act_order_inputs) {
    std::string names;
    for (const auto& l : layers) names += (names.empty() ? "" : ", ") + l;
    c.draft.skip("act_order_gather.K" + s(k), "act_order_gather", {{"tokens", "tokens"}, {"K", k}},
                 "act-order (desc_act) checkpoint: the input of " + names + " is gathered by the layer's permutation of K before "
                 "gemv_w4 (whose groups are then contiguous); engines fuse the gather into their int4 kernel, hone has no family for it");
  }
  if (c.tp.tp > 1)
    c.draft.skip("all_reduce", "all_reduce", {{"tokens", "tokens"}, {"hidden", hidden}},
                 "after every row-parallel layer (o_proj, down_proj, out_proj) and the embedding, the " + s(c.tp.tp) +
                     " GPUs sum their partial outputs (NCCL or the engine's custom all-reduce), and lm_head's logits are gathered: "
                     "communication, not a kernel hone tunes");
}

std::vector<std::string> model_notes(const ImportContext& c) {
  std::vector<std::string> notes;
  const HfConfig& cfg = c.cfg;
  notes.push_back("every op is listed once per layer role with its dims on one GPU; num_hidden_layers = " +
                  s(cfg.integer("num_hidden_layers")) + " layers repeat them, each op's note says which layers run it");
  if (c.tp.tp > 1)
    notes.push_back("tensor parallelism " + s(c.tp.tp) + ", as vLLM shards the model: column-parallel layers (qkv, gate_up, "
                    "in_proj, MoE w13) split their outputs, row-parallel ones (o_proj, down, out_proj, MoE w2) their K, heads "
                    "split, kv heads split or replicated, lm_head split over the vocabulary; routers and gates unsplit");
  const std::string dtype = cfg.text_or("torch_dtype", cfg.text_or("dtype", "bfloat16"));
  if (dtype != "bfloat16")
    notes.push_back("torch_dtype is " + dtype + ": hone's families compute in bf16, so their kernels replace the model's "
                    "when the engine serves it in bfloat16 (vLLM: --dtype bfloat16)");
  if (c.quant.format.kind != WeightKind::bf16) notes.push_back("quantization: " + c.quant.format.scheme);
  for (const auto& n : c.quant.notes) notes.push_back("quantization: " + n);
  for (const auto& n : c.draft.notes) notes.push_back(n);
  return notes;
}

}  // namespace

std::vector<std::int64_t> default_context_buckets() { return {1024, 4096, 16384, 32768}; }

std::vector<std::string> importable_architectures() {
  std::vector<std::string> out;
  for (const auto& a : architectures()) out.push_back(a.name);
  return out;
}

ImportResult import_model(const ImportOptions& o, const FamilyCatalog& families) {
  if (o.tp < 1) throw InputError("--tp must be at least 1");
  ImportContext c;
  c.cfg = load_hf_config(o.source);
  c.tp = {c.cfg.file.string(), o.tp};
  c.draft.families = &families;
  const auto buckets = o.buckets.empty() ? default_bucket_bounds() : checked_buckets(o.buckets, "--buckets");
  c.context_buckets = o.context_buckets.empty() ? default_context_buckets() : checked_buckets(o.context_buckets, "--context-buckets");
  c.max_tokens = buckets.back();
  const Architecture& arch = find_architecture(c.cfg);
  c.quant = read_quantization(c.cfg);

  const std::int64_t hidden = c.cfg.integer("hidden_size");
  const double eps = c.cfg.number("rms_norm_eps");
  c.draft.skip("embed_tokens", "embedding", {{"tokens", "tokens"}, {"hidden", hidden}},
               "a gather of one row of the embedding table per token; hone has no family for it");
  arch.layers(c);
  add_model_ends(c, arch, hidden, eps);
  if (arch.name == "Qwen3NextForCausalLM")
    c.draft.notes.push_back("the multi-token-prediction layer (mtp.*) is not listed: plain decode does not run it");
  if (c.draft.ops.empty())
    throw input_error(c.cfg.file.string(), "no op of this model has a family in hone; nothing written");

  OrderedJson doc;
  doc["model"] = o.name.empty() ? default_name(o, c.cfg) : o.name;
  if (!o.hf_id.empty()) doc["hf_id"] = o.hf_id;
  std::filesystem::path recorded = o.source;
  if (!o.out.empty()) {
    const auto base = std::filesystem::absolute(o.out).parent_path();
    recorded = std::filesystem::absolute(o.source).lexically_normal().lexically_relative(base);
  }
  doc["import"] = {{"config", recorded.generic_string()}, {"architecture", arch.name}, {"tp", o.tp}};
  const auto notes = model_notes(c);   // before the record: the notes read fields too
  doc["config"] = c.cfg.record();
  doc["notes"] = notes;

  const auto used = c.draft.dynamic_dims();
  OrderedJson dynamic = OrderedJson::object();
  dynamic["tokens"] = {{"description", "tokens in one decode step (the decode batch): one new token per sequence"}, {"buckets", buckets}};
  if (used.count("context")) {
    std::vector<std::int64_t> ctx;
    for (auto b : c.context_buckets)
      if (b <= c.max_context) ctx.push_back(b);
    if (ctx.empty()) ctx.push_back(c.max_context);
    dynamic["context"] = {{"description", "tokens of context per sequence (attention's KV length, at most " + s(c.max_context) + ")"},
                          {"buckets", ctx}};
  }
  doc["dynamic"] = dynamic;
  doc["ops"] = c.draft.ops;
  if (!c.draft.not_tuned.empty()) doc["not_tuned"] = c.draft.not_tuned;

  ImportResult r;
  r.text = shapes_text(doc);
  r.ops = c.draft.ops.size();
  r.not_tuned = c.draft.not_tuned.size();
  for (const auto& op : c.draft.ops) {
    const std::string f = op["op"].get<std::string>();
    if (std::find(r.families.begin(), r.families.end(), f) == r.families.end()) r.families.push_back(f);
  }
  std::sort(r.families.begin(), r.families.end());
  return r;
}

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> all = {
      {"LlamaForCausalLM", llama_layers, 0},       {"MistralForCausalLM", llama_layers, 0},
      {"Qwen2ForCausalLM", qwen2_layers, 0},       {"Qwen3ForCausalLM", qwen3_layers, 0},
      {"MixtralForCausalLM", mixtral_layers, 0},   {"Qwen3MoeForCausalLM", qwen3_moe_layers, 0},
      {"Qwen3NextForCausalLM", qwen3_next_layers, 1},
  };
  return all;
}

}  // namespace hone
