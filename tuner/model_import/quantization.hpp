#pragma once
// A checkpoint's quantization_config, read as the linear families hone has see it: FP8 weights in
// blocks of BN rows by BK columns (gemv_fp8), INT4 weights in groups of G along K (gemv_w4), or a
// scheme no family takes (its layers are listed as not tuned, with the reason).
#include <cstdint>
#include <string>
#include <vector>

#include "tuner/model_import/hf_config.hpp"

namespace hone {

enum class WeightKind { bf16, fp8, int4, unsupported };

struct WeightFormat {
  WeightKind kind = WeightKind::bf16;
  // fp8: the scale block; 0 stands for the whole dim of the layer as one GPU holds it
  // (per-channel: block_n 1, block_k 0; per-tensor: 0, 0; Qwen's blocks: 128, 128).
  std::int64_t block_n = 0, block_k = 0;
  std::int64_t group = 0;      // int4: group size along K, 0 = K
  bool act_order = false;      // int4: groups follow a permutation of K (GPTQ desc_act, compressed-tensors actorder)
  std::string scheme;          // for notes: "FP8 per-channel weights (compressed-tensors)"
  std::string family_needed;   // unsupported: the family it would take
  std::string reason;          // unsupported: why none of hone's does
};

struct Quantization {
  WeightFormat format;                 // of every quantized linear layer
  std::vector<std::string> ignore;     // modules kept in bf16 ("lm_head", "re:.*mlp.gate$", "mlp.gate")
  bool lm_head = false;                // lm_head quantized too (GPTQ's lm_head flag)
  std::vector<std::string> notes;      // what the families do not take from the scheme (activations, ...)

  /// The format of the linear layer whose weight is the module `module` (an HF path such as
  /// "model.layers.0.self_attn.q_proj"): bf16 when the checkpoint leaves it unquantized.
  WeightFormat of(const std::string& module) const;
};

/// Reads config.quantization_config (none: bf16). Throws InputError naming the file and the field
/// when a field the scheme needs is missing or malformed.
Quantization read_quantization(const HfConfig& config);

}  // namespace hone
