#pragma once
// `hone model import`: a Hugging Face config.json to a shapes file holding every decode-time op of
// the model as one GPU runs it under tensor parallelism: the op family, its dims and scalars, a
// note where a choice needs explaining; and, apart, the ops no family of hone covers (yet), with
// the reason. Which families exist is read from the templates root, so a re-import picks up a
// family that has landed with no change here.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/model_import/family_catalog.hpp"

namespace hone {

struct ImportOptions {
  std::filesystem::path source;            // config.json, or a model folder holding one
  std::int64_t tp = 1;                     // tensor-parallel GPUs
  std::string name;                        // the model's name in the file; "": from the folder or file name
  std::string hf_id;                       // documentation: the model's Hugging Face id
  std::vector<std::int64_t> buckets;       // tokens buckets; empty: the default
  std::vector<std::int64_t> context_buckets;  // attention's context buckets; empty: the default
  std::filesystem::path out;               // where the file goes ("": stdout); the config is recorded relative to it
};

struct ImportResult {
  std::string text;                        // the shapes file
  std::size_t ops = 0, not_tuned = 0;
  std::vector<std::string> families;       // the families its ops use
};

/// The context buckets used when none are given: 1K, 4K, 16K and 32K tokens (those above the
/// model's longest context are dropped).
std::vector<std::int64_t> default_context_buckets();

/// Imports a config. Throws InputError naming the file and the field for bad input: an unknown
/// architecture, a missing or malformed field, a --tp that does not divide a dim.
ImportResult import_model(const ImportOptions& options, const FamilyCatalog& families);

/// The architectures the importer knows, as config.json names them.
std::vector<std::string> importable_architectures();

}  // namespace hone
