#pragma once
// A Hugging Face config.json as the importer reads it: a field it needs that is missing or of the
// wrong type is bad input naming the file and the field; the fields it read are kept, so that the
// shapes file records the published numbers it rests on.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone {

struct HfConfig {
  std::filesystem::path file;
  nlohmann::json j;
  mutable std::set<std::string> read;   // top-level fields looked at

  /// Present and not null.
  bool has(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;            // required, positive
  std::int64_t integer_or(const std::string& key, std::int64_t fallback) const;
  double number(const std::string& key) const;                   // required
  double number_or(const std::string& key, double fallback) const;
  bool flag_or(const std::string& key, bool fallback) const;
  std::string text_or(const std::string& key, const std::string& fallback) const;
  std::vector<std::int64_t> integers_or(const std::string& key) const;  // a list of integers, empty when absent
  /// The field as it is (null when absent), marked as read.
  const nlohmann::json& raw(const std::string& key) const;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const;
  /// The fields read, with their published values.
  nlohmann::json record() const;
};

/// Reads `source`: a config.json, or a model folder holding one. A folder's quantize_config.json
/// (older GPTQ checkpoints keep the quantisation there) stands in for a missing quantization_config,
/// as engines read it. Throws InputError naming the file.
HfConfig load_hf_config(const std::filesystem::path& source);

}  // namespace hone
