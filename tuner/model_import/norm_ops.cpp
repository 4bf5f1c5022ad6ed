#include "tuner/model_import/norm_ops.hpp"

namespace hone {

std::string zero_centred_note() {
  return "the model's norm is zero-centred (x * (1 + w)); the rmsnorm contract multiplies by w, so an engine passes 1 + w "
         "(folded once at load), the shape is the same";
}

void add_norm(ImportContext& c, const NormOp& n) {
  if (n.after_residual && c.draft.has("fused_add_rmsnorm")) {
    c.draft.add({n.name, "fused_add_rmsnorm", {{"tokens", "tokens"}, {"hidden", n.hidden}}, {{"eps", n.eps}, {"w_offset", n.w_offset}},
                 n.note});
    return;
  }
  if (n.after_residual) c.residual_unfused = true;
  std::string note = n.note;
  if (n.w_offset != 0) note += (note.empty() ? "" : "; ") + zero_centred_note();
  c.draft.add({n.name, "rmsnorm", {{"tokens", "tokens"}, {"hidden", n.hidden}}, {{"eps", n.eps}}, note});
}

}  // namespace hone

namespace hone {

void add_input_norms(ImportContext& c, std::int64_t hidden, double eps, double w_offset, const std::string& note) {
  if (c.draft.has("fused_add_rmsnorm"))
    add_norm(c, {"first_input_layernorm", hidden, eps, w_offset, false, "layer 0's input norm: no residual to add yet"});
  add_norm(c, {"input_layernorm", hidden, eps, w_offset, true, note});
}

}  // namespace hone
