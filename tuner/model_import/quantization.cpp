#include "tuner/model_import/quantization.hpp"

#include <algorithm>
#include <regex>

namespace hone {

using nlohmann::json;

namespace {

struct QuantReader {
  const HfConfig& cfg;
  const json& q;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    cfg.fail("quantization_config." + field, problem);
  }
  const json& field(const json& obj, const std::string& key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where + key, "is missing, and the importer needs it");
    return *it;
  }
  std::int64_t integer(const json& obj, const std::string& key, const std::string& where = "") const {
    const json& v = field(obj, key, where);
    if (!v.is_number_integer()) fail(where + key, "must be an integer, not " + v.dump());
    return v.get<std::int64_t>();
  }
  bool flag(const json& obj, const std::string& key, bool fallback, const std::string& where = "") const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) fail(where + key, "must be true or false, not " + it->dump());
    return it->get<bool>();
  }
  std::string text(const json& obj, const std::string& key, const std::string& where = "") const {
    const json& v = field(obj, key, where);
    if (!v.is_string()) fail(where + key, "must be a string, not " + v.dump());
    return v.get<std::string>();
  }
  std::vector<std::string> names(const std::string& key) const {
    std::vector<std::string> out;
    auto it = q.find(key);
    if (it == q.end() || it->is_null()) return out;
    if (!it->is_array()) fail(key, "must be a list of module names, not " + it->dump());
    for (const auto& x : *it) {
      if (!x.is_string()) fail(key, "must be a list of module names, not " + it->dump());
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  // A group size as GPTQ and AWQ write it: -1 (or the whole row) is one group per row.
  std::int64_t group(const json& obj, const std::string& key, const std::string& where = "") const {
    const std::int64_t g = integer(obj, key, where);
    if (g == -1) return 0;
    if (g <= 0) fail(where + key, "must be positive or -1, not " + std::to_string(g));
    return g;
  }

  WeightFormat unsupported(const std::string& family, const std::string& reason) const {
    WeightFormat f;
    f.kind = WeightKind::unsupported;
    f.family_needed = family;
    f.reason = reason;
    f.scheme = reason;
    return f;
  }

  Quantization fp8() const {
    Quantization out;
    out.format.kind = WeightKind::fp8;
    auto it = q.find("weight_block_size");
    if (it != q.end() && !it->is_null()) {
      if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() || !(*it)[1].is_number_integer() ||
          (*it)[0].get<std::int64_t>() <= 0 || (*it)[1].get<std::int64_t>() <= 0)
        fail("weight_block_size", "must be two positive integers [rows, columns], not " + it->dump());
      out.format.block_n = (*it)[0].get<std::int64_t>();
      out.format.block_k = (*it)[1].get<std::int64_t>();
      out.format.scheme = "FP8 weights in " + std::to_string(out.format.block_n) + "x" + std::to_string(out.format.block_k) +
                          " blocks (weight_block_size)";
    } else {
      out.format.scheme = "FP8 weights with one scale per tensor";
      out.notes.push_back("per-tensor FP8: an engine fuses q/k/v (and gate/up) under one scale, their largest (vLLM "
                          "requantizes the shards to it), so BN = N and BK = K");
    }
    out.ignore = names(q.contains("ignored_layers") ? "ignored_layers" : "modules_to_not_convert");
    out.notes.push_back("activation_scheme " + q.value("activation_scheme", std::string("dynamic")) +
                        ": the checkpoint's activations may be quantized too; gemv_fp8 is weight-only (bf16 activations, "
                        "as vLLM's FP8 Marlin path runs it)");
    return out;
  }

  Quantization compressed_tensors() const {
    Quantization out;
    out.ignore = names("ignore");
    const json& groups = field(q, "config_groups", "");
    if (!groups.is_object() || groups.empty()) fail("config_groups", "must map group names to schemes");
    if (groups.size() != 1) {
      out.format = unsupported("gemv for mixed compressed-tensors schemes",
                               "compressed-tensors with " + std::to_string(groups.size()) +
                                   " config groups: layers differ in scheme, and the importer gives each role one family");
      return out;
    }
    const std::string where = "config_groups." + groups.begin().key() + ".";
    const json& g = groups.begin().value();
    const json& w = field(g, "weights", where);
    if (!w.is_object()) fail(where + "weights", "must be an object");
    const std::string ww = where + "weights.";
    const std::int64_t bits = integer(w, "num_bits", ww);
    const std::string type = text(w, "type", ww);
    const std::string strategy = text(w, "strategy", ww);
    const json acts = g.value("input_activations", json());
    if (type == "float" && bits == 8) {
      out.format.kind = WeightKind::fp8;
      if (strategy == "tensor") {
        out.format.scheme = "FP8 weights, one scale per tensor (compressed-tensors)";
      } else if (strategy == "channel") {
        out.format.block_n = 1;
        out.format.scheme = "FP8 weights, one scale per output channel (compressed-tensors)";
      } else if (strategy == "block") {
        const json& b = field(w, "block_structure", ww);
        if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
          fail(ww + "block_structure", "must be [rows, columns], not " + b.dump());
        out.format.block_n = b[0].get<std::int64_t>();
        out.format.block_k = b[1].get<std::int64_t>();
        out.format.scheme = "FP8 weights in " + b[0].dump() + "x" + b[1].dump() + " blocks (compressed-tensors)";
      } else if (strategy == "group") {
        out.format.block_n = 1;
        out.format.block_k = group(w, "group_size", ww);
        out.format.scheme = "FP8 weights, one scale per row and group of " + std::to_string(out.format.block_k) + " (compressed-tensors)";
      } else {
        fail(ww + "strategy", "'" + strategy + "' is not a weight strategy the importer knows (tensor, channel, block, group)");
      }
      if (acts.is_object())
        out.notes.push_back("the checkpoint also quantizes activations to FP8 (input_activations, strategy " +
                            acts.value("strategy", std::string("?")) + "); gemv_fp8 is weight-only: bf16 activations");
    } else if (type == "int" && bits == 4 && !acts.is_object()) {
      out.format.kind = WeightKind::int4;
      if (strategy == "group") out.format.group = group(w, "group_size", ww);
      else if (strategy != "channel")
        fail(ww + "strategy", "'" + strategy + "' is not an INT4 weight strategy the importer knows (group, channel)");
      out.format.act_order = w.contains("actorder") && !w["actorder"].is_null() && w["actorder"] != false;
      out.format.scheme = "INT4 weights" + std::string(out.format.group ? ", groups of " + std::to_string(out.format.group) : ", per channel") +
                          (flag(w, "symmetric", true, ww) ? ", symmetric" : ", with zero points") + " (compressed-tensors)";
    } else {
      const std::string scheme = type + std::to_string(bits) + " weights" +
                                 (acts.is_object() ? " with " + acts.value("type", std::string("?")) +
                                                         std::to_string(acts.value("num_bits", 0)) + " activations"
                                                   : "");
      out.format = unsupported("gemv for " + scheme, "compressed-tensors " + scheme + ": no linear family of hone takes them "
                                                         "(it has bf16, FP8 and INT4 weights with bf16 activations)");
    }
    return out;
  }

  Quantization int4(const std::string& method) const {
    Quantization out;
    const std::int64_t bits = integer(q, q.contains("bits") || !q.contains("w_bit") ? "bits" : "w_bit");
    if (bits != 4) {
      out.format = unsupported("gemv_w" + std::to_string(bits),
                               method + " with " + std::to_string(bits) + "-bit weights: hone's gemv_w4 takes 4-bit ones");
      return out;
    }
    out.format.kind = WeightKind::int4;
    out.format.group = group(q, q.contains("group_size") || !q.contains("q_group_size") ? "group_size" : "q_group_size");
    if (method == "gptq") {
      out.format.act_order = flag(q, "desc_act", false);
      out.lm_head = flag(q, "lm_head", false);
      out.format.scheme = "GPTQ INT4 weights, groups of " + std::to_string(out.format.group) +
                          (flag(q, "sym", true) ? ", symmetric" : ", with zero points") + (out.format.act_order ? ", act-order" : "");
    } else {
      out.ignore = names("modules_to_not_convert");
      out.format.scheme = "AWQ INT4 weights, groups of " + std::to_string(out.format.group) +
                          (flag(q, "zero_point", true) ? ", with zero points" : ", symmetric");
    }
    out.notes.push_back(method == "gptq" ? "GPTQ's qweight/qzeros/scales are repacked once at load to gemv_w4's layout "
                                           "(compressed-tensors' W4A16), as engines repack them for their own kernels"
                                         : "AWQ's interleaved packing is repacked once at load to gemv_w4's layout "
                                           "(compressed-tensors' W4A16), as engines repack it for their own kernels");
    return out;
  }
};

std::vector<std::string> components(const std::string& path) {
  static const std::regex index(R"(^[0-9]+$)");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    std::string c = path.substr(start, dot - start);
    out.push_back(std::regex_match(c, index) ? "*" : c);   // a layer's index: every layer's role
    start = dot + 1;
  }
  return out;
}

// An ignore entry names a module by whole dotted components ("mlp.gate" is the router, not
// "mlp.gate_proj"), anywhere in the path, a layer index standing for every layer.
bool names_module(const std::string& entry, const std::string& module) {
  const auto e = components(entry), m = components(module);
  for (std::size_t i = 0; i + e.size() <= m.size(); ++i)
    if (std::equal(e.begin(), e.end(), m.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  return false;
}

}  // namespace

WeightFormat Quantization::of(const std::string& module) const {
  if (format.kind == WeightKind::bf16) return format;
  if (module == "lm_head" && !lm_head) return WeightFormat{};
  for (const auto& entry : ignore) {
    if (entry.rfind("re:", 0) == 0) {
      try {
        if (std::regex_search(module, std::regex(entry.substr(3)))) return WeightFormat{};
      } catch (const std::regex_error&) {
      }
    } else if (names_module(entry, module)) {
      return WeightFormat{};
    }
  }
  return format;
}

Quantization read_quantization(const HfConfig& cfg) {
  const json& q = cfg.raw("quantization_config");
  if (q.is_null()) return Quantization{};
  if (!q.is_object()) cfg.fail("quantization_config", "must be an object");
  QuantReader r{cfg, q};
  const std::string method = r.text(q, "quant_method");
  if (method == "fp8") return r.fp8();
  if (method == "fbgemm_fp8") {
    Quantization out;
    out.format.kind = WeightKind::fp8;
    out.format.block_n = 1;
    out.format.scheme = "FP8 weights, one scale per output channel (fbgemm_fp8)";
    out.ignore = r.names("modules_to_not_convert");
    out.notes.push_back("fbgemm_fp8 also quantizes activations per token at run time; gemv_fp8 is weight-only: bf16 activations");
    return out;
  }
  if (method == "compressed-tensors") return r.compressed_tensors();
  if (method == "gptq" || method == "awq") return r.int4(method);
  Quantization out;
  out.format = r.unsupported("gemv for " + method + " weights",
                             "quant_method '" + method + "': no linear family of hone takes its weights "
                             "(it has bf16, FP8 in blocks and INT4 in groups)");
  return out;
}

}  // namespace hone
