#include "tuner/model_import/hf_config.hpp"

#include "core/input_error.hpp"
#include "core/json_file.hpp"

namespace hone {

using nlohmann::json;

void HfConfig::fail(const std::string& field, const std::string& problem) const {
  throw input_error(file.string(), "'" + field + "' " + problem);
}

bool HfConfig::has(const std::string& key) const {
  read.insert(key);
  auto it = j.find(key);
  return it != j.end() && !it->is_null();
}

const json& HfConfig::raw(const std::string& key) const {
  static const json null_value;
  read.insert(key);
  auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

std::int64_t HfConfig::integer(const std::string& key) const {
  if (!has(key)) fail(key, "is missing, and the importer needs it");
  const json& v = j[key];
  if (!v.is_number_integer()) fail(key, "must be an integer, not " + v.dump());
  if (v.get<std::int64_t>() <= 0) fail(key, "must be positive, not " + v.dump());
  return v.get<std::int64_t>();
}

std::int64_t HfConfig::integer_or(const std::string& key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}

double HfConfig::number(const std::string& key) const {
  if (!has(key)) fail(key, "is missing, and the importer needs it");
  const json& v = j[key];
  if (!v.is_number()) fail(key, "must be a number, not " + v.dump());
  return v.get<double>();
}

double HfConfig::number_or(const std::string& key, double fallback) const { return has(key) ? number(key) : fallback; }

bool HfConfig::flag_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& v = j[key];
  if (!v.is_boolean()) fail(key, "must be true or false, not " + v.dump());
  return v.get<bool>();
}

std::string HfConfig::text_or(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const json& v = j[key];
  if (!v.is_string()) fail(key, "must be a string, not " + v.dump());
  return v.get<std::string>();
}

std::vector<std::int64_t> HfConfig::integers_or(const std::string& key) const {
  std::vector<std::int64_t> out;
  if (!has(key)) return out;
  const json& v = j[key];
  if (!v.is_array()) fail(key, "must be a list of integers, not " + v.dump());
  for (const auto& x : v) {
    if (!x.is_number_integer()) fail(key, "must be a list of integers, not " + v.dump());
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

json HfConfig::record() const {
  json out = json::object();
  for (const auto& key : read)
    if (j.contains(key)) out[key] = j[key];
  return out;
}

HfConfig load_hf_config(const std::filesystem::path& source) {
  HfConfig c;
  const bool folder = std::filesystem::is_directory(source);
  c.file = folder ? source / "config.json" : source;
  if (folder && !std::filesystem::is_regular_file(c.file))
    throw input_error(source.string(), "is a folder without a config.json (a Hugging Face model folder holds one)");
  c.j = read_json_file(c.file);
  if (!c.j.is_object()) throw input_error(c.file.string(), "must hold a JSON object (a Hugging Face config)");
  const auto side = source / "quantize_config.json";
  if (folder && !c.j.contains("quantization_config") && std::filesystem::is_regular_file(side)) {
    json q = read_json_file(side);
    if (!q.is_object()) throw input_error(side.string(), "must hold a JSON object");
    c.j["quantization_config"] = q;
  }
  return c;
}

}  // namespace hone
