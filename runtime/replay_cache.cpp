#include "runtime/replay_cache.hpp"

#include <zlib.h>

#include <cctype>
#include <cmath>
#include <memory>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"

namespace hone {

namespace {

using Json = nlohmann::ordered_json;  // ordered: the space keeps the file's order

// The file's text; zlib reads gzip and plain files alike. A gzip stream that ends early (a copy
// cut short) yields what it holds, and the JSON repair below deals with the rest.
std::string read_text(const std::filesystem::path& file) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> in(gzopen(file.c_str(), "rb"), gzclose);
  if (!in) throw input_error(file.string(), "cannot open");
  gzbuffer(in.get(), 1 << 20);
  std::string text;
  char buf[1 << 16];
  int n;
  while ((n = gzread(in.get(), buf, sizeof buf)) > 0) text.append(buf, n);
  int err = Z_OK;
  const char* msg = gzerror(in.get(), &err);
  if (n < 0 && err != Z_BUF_ERROR) throw input_error(file.string(), std::string("cannot decompress: ") + msg);
  return text;
}

// Drops the 32 repeated measurements of every entry while parsing: hone uses their median.
bool drop_times(int depth, Json::parse_event_t event, Json& parsed) {
  return !(event == Json::parse_event_t::key && depth > 1 && parsed == "times");
}

std::optional<Json> try_parse(std::string_view text) {
  Json j = Json::parse(text, drop_times, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::string_view trim_end(std::string_view t) {
  while (!t.empty() && (std::isspace(static_cast<unsigned char>(t.back())) || t.back() == ',')) t.remove_suffix(1);
  return t;
}

// Kernel Tuner appends entries as it measures them and writes the closing "}\n}" only when it
// finishes; a copy may also end inside an entry. Close the file after its last complete entry.
std::optional<Json> parse_unclosed(std::string_view text) {
  std::string_view t = trim_end(text);
  for (int cut = 0; cut < 16 && !t.empty(); ++cut) {
    for (const char* closing : {"}}", "}"}) {
      auto j = try_parse(std::string(t) + closing);
      if (j && j->is_object() && j->contains("cache")) return j;
    }
    // Back to the end of the entry before: the last '}' short of the end.
    const auto brace = t.substr(0, t.size() - 1).find_last_of('}');
    if (brace == std::string_view::npos) break;
    t = trim_end(t.substr(0, brace + 1));
  }
  return std::nullopt;
}

double number_of(const Json& v, const Json& declared, const std::string& param, const std::string& file) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number()) return v.get<double>();
  // A non-numeric value (a type name, a string option) is its index in tune_params.
  if (declared.is_array())
    for (std::size_t i = 0; i < declared.size(); ++i)
      if (declared[i] == v) return static_cast<double>(i);
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0') return d;
  }
  throw input_error(file, "parameter '" + param + "' has the value " + v.dump() + ", which tune_params does not list");
}

// Values from the key itself ("16,1,4") for entries that do not repeat the parameters.
std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t comma; (comma = key.find(',', start)) != std::string::npos; start = comma + 1)
    out.push_back(key.substr(start, comma - start));
  out.push_back(key.substr(start));
  return out;
}

ReplayEntry read_entry(const std::string& key, const Json& e, const std::vector<std::string>& params, const Json& tune_params,
                       const std::string& file) {
  if (!e.is_object()) throw input_error(file, "cache entry '" + key + "' is not an object");
  ReplayEntry r;
  r.key = key;
  std::vector<std::string> from_key;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Json declared = tune_params.value(params[i], Json());
    if (e.contains(params[i])) {
      r.values.push_back(number_of(e[params[i]], declared, params[i], file));
      continue;
    }
    if (from_key.empty()) from_key = split_key(key);
    if (from_key.size() != params.size())
      throw input_error(file, "cache entry '" + key + "' has neither the parameter '" + params[i] + "' nor a value for it in its key");
    r.values.push_back(number_of(Json(from_key[i]), declared, params[i], file));
  }
  // A time is a finite number; Kernel Tuner writes a marker string for a failure. Very old
  // versions wrote a huge number instead: no kernel takes 1e20 ms, so that is a failure too.
  const Json t = e.value("time", Json());
  if (t.is_number() && std::isfinite(t.get<double>()) && t.get<double>() < 1e20)
    r.time_ms = t.get<double>();
  else
    r.failure = t.is_string() ? t.get<std::string>() : t.is_null() ? "no time recorded" : t.dump();
  for (const char* part : {"compile_time", "verification_time", "benchmark_time"})
    if (auto it = e.find(part); it != e.end() && it->is_number()) r.cost_ms += it->get<double>();
  return r;
}

}  // namespace

std::size_t ReplayCache::valid() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += e.time_ms.has_value();
  return n;
}

std::optional<std::size_t> ReplayCache::best() const {
  std::optional<std::size_t> b;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].time_ms && (!b || *entries[i].time_ms < *entries[*b].time_ms)) b = i;
  return b;
}

ReplayCache read_replay_cache(const std::filesystem::path& file) {
  const std::string name = file.string();
  const std::string text = read_text(file);
  ReplayCache c;
  c.file = file;
  std::optional<Json> j;
  try {
    j = Json::parse(text, drop_times);
  } catch (const Json::parse_error& e) {
    // An error at the very end is a file that stops early; anywhere else the file is malformed.
    if (e.byte < trim_end(text).size()) throw input_error(name, std::string("not valid JSON: ") + e.what());
    j = parse_unclosed(text);
    if (!j) throw input_error(name, "the file stops early and no complete configuration could be recovered from it");
    c.unclosed = true;
  }
  if (!j->is_object() || !j->contains("cache") || !(*j)["cache"].is_object())
    throw input_error(name, "not a Kernel Tuner cache file: no \"cache\" object");
  const Json& keys = (*j).value("tune_params_keys", Json());
  if (!keys.is_array() || keys.empty()) throw input_error(name, "not a Kernel Tuner cache file: no \"tune_params_keys\" list");
  for (const auto& k : keys) {
    if (!k.is_string()) throw input_error(name, "\"tune_params_keys\" holds " + k.dump() + ", not a name");
    c.params.push_back(k.get<std::string>());
  }
  const Json tune_params = j->value("tune_params", Json::object());
  c.device_name = j->value("device_name", "");
  c.kernel_name = j->value("kernel_name", "");
  for (const auto& [key, entry] : (*j)["cache"].items()) c.entries.push_back(read_entry(key, entry, c.params, tune_params, name));
  if (c.entries.empty()) throw input_error(name, "the cache holds no configurations");
  return c;
}

}  // namespace hone
