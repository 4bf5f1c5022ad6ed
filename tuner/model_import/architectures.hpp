#pragma once
// The architectures the importer knows, each as the ops of its decoder layers (model_import.cpp
// adds the embedding, the final norm and lm_head around them).
#include <string>
#include <vector>

#include "tuner/model_import/import_context.hpp"

namespace hone {

struct Architecture {
  std::string name;                       // as config.json's "architectures" names it
  void (*layers)(ImportContext&);         // adds the ops of the decoder layers
  double norm_offset = 0;                 // 1: the model's RMSNorms are zero-centred (x * (1 + w))
};

const std::vector<Architecture>& architectures();

// One file per family of architectures.
void llama_layers(ImportContext& c);      // Llama, Mistral (llama_family.cpp)
void qwen2_layers(ImportContext& c);
void qwen3_layers(ImportContext& c);
void mixtral_layers(ImportContext& c);    // moe_family.cpp
void qwen3_moe_layers(ImportContext& c);
void qwen3_next_layers(ImportContext& c); // qwen3_next.cpp

}  // namespace hone
