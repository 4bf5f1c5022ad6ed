#pragma once
// The RMSNorms around each block. After a residual add they are fused_add_rmsnorm where hone has it
// (the add fused, as vLLM and FlashInfer run it between layers), else rmsnorm with the add left
// untuned. Zero-centred norms (Qwen3-Next: x * (1 + w)) pass w_offset 1.
#include <cstdint>
#include <string>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct NormOp {
  std::string name;
  std::int64_t hidden = 0;
  double eps = 1e-6;
  double w_offset = 0;          // 1: zero-centred weights
  bool after_residual = true;   // the residual add comes first (all but layer 0's input norm)
  std::string note;
};

void add_norm(ImportContext& c, const NormOp& n);

/// "... zero-centred (x * (1 + w)) ..." for an rmsnorm that stands in for one.
std::string zero_centred_note();

}  // namespace hone

namespace hone {

/// A decoder layer's input norm: fused with the previous layer's residual add, except in layer 0,
/// which has no residual yet and runs a plain rmsnorm ("first_input_layernorm", listed only when
/// the fused family exists: without it every input norm is that rmsnorm).
void add_input_norms(ImportContext& c, std::int64_t hidden, double eps, double w_offset, const std::string& note);

}  // namespace hone
