#include "tuner/model_import/linear_layer.hpp"

#include "core/input_error.hpp"

namespace hone {

namespace {

std::string joined_note(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "; " + b;
}

void require_multiple(const ImportContext& c, const LinearLayer& l, const std::string& dim, std::int64_t value,
                      std::int64_t unit, const std::string& what) {
  if (value % unit == 0) return;
  throw input_error(c.cfg.file.string(), (c.tp.tp > 1 ? "--tp " + std::to_string(c.tp.tp) + ": " : std::string()) + l.name +
                                             " has " + dim + " = " + std::to_string(value) + " per GPU, not a multiple of " +
                                             what + " " + std::to_string(unit));
}

}  // namespace

void add_linear(ImportContext& c, const LinearLayer& l) {
  OrderedJson dims = {{"M", "tokens"}, {"N", l.N}, {"K", l.K}};
  if (!l.bias.empty()) {
    c.draft.skip(l.name, "gemv_bias", dims,
                 "the layer adds a bias (" + l.bias + "); hone's linear families have no bias argument, so a kernel "
                 "tuned without one would not replace the layer");
    return;
  }
  const WeightFormat f = l.never_quantized ? WeightFormat{} : c.quant.of(l.module);
  switch (f.kind) {
    case WeightKind::bf16:
      c.draft.add({l.name, "gemv", dims, OrderedJson::object(), l.note});
      return;
    case WeightKind::fp8: {
      const std::int64_t bn = f.block_n ? f.block_n : l.N, bk = f.block_k ? f.block_k : l.K;
      // As vLLM checks block scales: every output shard of a fused or split layer, and a split K,
      // must be whole blocks (a scale block may not straddle two GPUs or two fused weights).
      if (f.block_n > 1 && (c.tp.tp > 1 || l.parts.size() > 1))
        for (auto p : l.parts.empty() ? std::vector<std::int64_t>{l.N} : l.parts)
          require_multiple(c, l, "an output shard", p, bn, "the FP8 scale block's rows (weight_block_size)");
      if (f.block_k > 1 && l.row_parallel && c.tp.tp > 1) require_multiple(c, l, "K", l.K, bk, "the FP8 scale block's columns");
      dims["BN"] = bn;
      dims["BK"] = bk;
      c.draft.add({l.name, "gemv_fp8", dims, OrderedJson::object(), joined_note(l.note, f.scheme)});
      return;
    }
    case WeightKind::int4: {
      const std::int64_t g = f.group ? f.group : l.K;
      require_multiple(c, l, "K", l.K, g, "the quantization group (group_size)");
      require_multiple(c, l, "K", l.K, 8, "8 (gemv_w4 packs eight 4-bit weights in an int)");
      require_multiple(c, l, "N", l.N, 8, "8 (gemv_w4 packs the zero points of eight rows in an int)");
      dims["G"] = g;
      if (f.act_order) c.act_order_inputs[l.K].push_back(l.name);
      c.draft.add({l.name, "gemv_w4", dims, OrderedJson::object(), joined_note(l.note, f.scheme)});
      return;
    }
    case WeightKind::unsupported:
      c.draft.skip(l.name, f.family_needed, dims, f.reason);
      return;
  }
}

}  // namespace hone
