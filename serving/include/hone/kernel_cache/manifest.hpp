#pragma once
// manifest.json of a hone kernel cache (serving/FORMAT.md), read into plain structs. Every
// problem is reported with the file, the entry and the field, and nothing of a manifest that
// fails a check is used.
#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hone/kernel_cache/error.hpp"
#include "hone/kernel_cache/launch_expr.hpp"

namespace hone::kernel_cache {

/// The newest manifest format this loader reads.
inline constexpr int kFormatVersion = 1;

struct ArgLayout {
  std::string name;
  std::string type;    // CUDA spelling: "const __nv_bfloat16*", "int", "float"
  std::string dtype;   // "bf16", "f32", "i32", "fp8" (e4m3, one byte)
  std::string role;    // "in" | "out" | "inout" | "scratch" | "scalar"
  std::vector<std::string> dims;  // buffers: row-major dims as expressions
  std::string value;   // integer scalars: the expression the argument must equal, "" when free
  std::string bytes;   // scratch: the bytes to allocate, an expression of the shape symbols
  std::string zeroed_bytes;  // scratch: the bytes at its start that must be zero before the first call ("" none)
  bool pointer() const { return !type.empty() && type.back() == '*'; }
};

struct DeviceRecord {
  std::string id;      // "emu:AMD EPYC", "cuda:NVIDIA H200"
  std::string kind;    // "emu" | "cuda" | "none"
  std::string name;
};

struct Resources {
  int registers = -1;
  int spill_stores = 0;
  int spill_loads = 0;
  int shared_bytes = 0;
  int stack_bytes = 0;
  std::string compiler;
};

struct Bounds {
  std::int64_t lo = 0, hi = 0;  // inclusive
};

struct CacheEntry {
  std::size_t index = 0;                        // position in the manifest's entries
  std::string op, entry, arch, timer, origin, variant;
  std::map<std::string, std::int64_t> static_dims;
  std::map<std::string, Bounds> buckets;        // dynamic symbol -> the values it serves
  std::map<std::string, double> scalars;
  DeviceRecord device;
  std::array<std::string, 3> grid, block;       // launch rule: expressions of the shape symbols
  std::string smem = "0";
  std::vector<ArgLayout> args;
  std::map<std::string, std::string> files;     // "source" | "ptx" | "cubin" -> path relative to the cache
  std::map<std::string, std::string> sha256;    // same keys
  double time_ms = 0, baseline_ms = 0;
  std::optional<Resources> resources;
  nlohmann::json raw;                           // the entry as written, for tools that need more

  /// A vendor library's baseline ("vendor:cublas"): no hone kernel beat it, so the entry names the
  /// library and carries no files; a loader never launches it.
  bool vendor() const { return origin.rfind("vendor:", 0) == 0; }

  /// "rmsnorm hidden=4096 tokens=1..8", for messages.
  std::string label() const {
    std::string s = op;
    for (const auto& [k, v] : static_dims) s += " " + k + "=" + std::to_string(v);
    for (const auto& [k, b] : buckets) s += " " + k + "=" + std::to_string(b.lo) + ".." + std::to_string(b.hi);
    return s;
  }
};

struct Manifest {
  int format_version = 0;
  std::string hone_version, compiler, created_at;
  std::vector<CacheEntry> entries;
};

namespace detail {

// Field access that names file, entry and field in every error.
struct ManifestReader {
  std::string file;

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw KernelCacheError(file + ": " + where + (where.empty() ? "" : ": ") + problem);
  }
  const nlohmann::json& field(const nlohmann::json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object()) fail(where, "is not an object");
    auto it = j.find(key);
    if (it == j.end()) fail(where, "lacks '" + key + "'");
    return *it;
  }
  std::string text(const nlohmann::json& j, const std::string& key, const std::string& where) const {
    const auto& v = field(j, key, where);
    if (!v.is_string()) fail(where + "." + key, "is not a string");
    return v.get<std::string>();
  }
  std::string text_or(const nlohmann::json& j, const std::string& key, const std::string& where) const {
    return j.contains(key) ? text(j, key, where) : std::string();
  }
  std::int64_t integer(const nlohmann::json& v, const std::string& where) const {
    if (!v.is_number_integer()) fail(where, "is not an integer");
    return v.get<std::int64_t>();
  }
  double number(const nlohmann::json& j, const std::string& key, const std::string& where) const {
    const auto& v = field(j, key, where);
    if (!v.is_number()) fail(where + "." + key, "is not a number");
    return v.get<double>();
  }
  // Expressions may be written as integers or strings.
  std::string expr(const nlohmann::json& v, const std::string& where) const {
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (!v.is_string() || v.get<std::string>().empty()) fail(where, "is not an expression");
    return v.get<std::string>();
  }
  // A path inside the cache: relative, without "..", so a manifest cannot make a loader read
  // files elsewhere.
  std::string relative_path(const nlohmann::json& v, const std::string& where) const {
    if (!v.is_string() || v.get<std::string>().empty()) fail(where, "is not a path");
    const std::string p = v.get<std::string>();
    if (p[0] == '/' || p == ".." || p.rfind("../", 0) == 0 || p.find("/../") != std::string::npos ||
        (p.size() >= 3 && p.compare(p.size() - 3, 3, "/..") == 0))
      fail(where, "'" + p + "' leaves the cache directory");
    return p;
  }

  CacheEntry entry(const nlohmann::json& j, std::size_t index) const {
    const std::string at = "entries[" + std::to_string(index) + "]";
    CacheEntry e;
    e.index = index;
    e.raw = j;
    e.op = text(j, "op", at);
    e.entry = text(j, "entry", at);
    e.arch = text(j, "arch", at);
    if (e.arch.rfind("sm_", 0) != 0 && e.arch.rfind("compute_", 0) != 0) fail(at + ".arch", "'" + e.arch + "' is not sm_XX");
    e.timer = text_or(j, "timer", at);
    e.origin = text_or(j, "origin", at);
    e.variant = text_or(j, "variant", at);

    const auto& sd = field(j, "static_dims", at);
    if (!sd.is_object()) fail(at + ".static_dims", "is not an object");
    for (const auto& [k, v] : sd.items()) e.static_dims[k] = integer(v, at + ".static_dims." + k);
    const auto& bk = field(j, "buckets", at);
    if (!bk.is_object()) fail(at + ".buckets", "is not an object");
    for (const auto& [k, v] : bk.items()) {
      if (!v.is_array() || v.size() != 2) fail(at + ".buckets." + k, "is not [lo, hi]");
      Bounds b{integer(v[0], at + ".buckets." + k + "[0]"), integer(v[1], at + ".buckets." + k + "[1]")};
      if (b.lo > b.hi) fail(at + ".buckets." + k, "is empty (lo > hi)");
      e.buckets[k] = b;
    }
    if (j.contains("scalars")) {
      if (!j["scalars"].is_object()) fail(at + ".scalars", "is not an object");
      for (const auto& [k, v] : j["scalars"].items()) {
        if (!v.is_number()) fail(at + ".scalars." + k, "is not a number");
        e.scalars[k] = v.get<double>();
      }
    }

    const auto& dev = field(j, "device", at);
    e.device = {text_or(dev, "id", at + ".device"), text(dev, "kind", at + ".device"), text_or(dev, "name", at + ".device")};

    const auto& launch = field(j, "launch", at);
    for (const char* part : {"grid", "block"}) {
      const auto& dims = field(launch, part, at + ".launch");
      if (!dims.is_array() || dims.empty() || dims.size() > 3) fail(at + ".launch." + part, "is not a list of 1 to 3 expressions");
      auto& out = std::string(part) == "grid" ? e.grid : e.block;
      out = {"1", "1", "1"};
      for (std::size_t i = 0; i < dims.size(); ++i) out[i] = expr(dims[i], at + ".launch." + part + "[" + std::to_string(i) + "]");
    }
    if (launch.contains("smem")) e.smem = expr(launch["smem"], at + ".launch.smem");

    const auto& args = field(j, "args", at);
    // Empty when the exporting hone no longer had the op family: the entry can then be found
    // but not launched (pack_args says why).
    if (!args.is_array()) fail(at + ".args", "is not a list");
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string aw = at + ".args[" + std::to_string(i) + "]";
      ArgLayout a;
      a.name = text(args[i], "name", aw);
      a.type = text(args[i], "type", aw);
      a.dtype = text_or(args[i], "dtype", aw);
      a.role = text(args[i], "role", aw);
      if (args[i].contains("dims") && args[i]["dims"].is_array())
        for (const auto& d : args[i]["dims"]) a.dims.push_back(expr(d, aw + ".dims"));
      if (args[i].contains("value")) a.value = expr(args[i]["value"], aw + ".value");
      if (a.role == "scratch") {
        a.bytes = expr(field(args[i], "bytes", aw), aw + ".bytes");
        if (args[i].contains("zeroed_bytes")) a.zeroed_bytes = expr(args[i]["zeroed_bytes"], aw + ".zeroed_bytes");
      }
      e.args.push_back(a);
    }

    const auto& files = field(j, "files", at);
    const auto& hashes = field(j, "sha256", at);
    if (!files.is_object()) fail(at + ".files", "is not an object");
    if (e.vendor() && !files.empty()) fail(at + ".files", "names files, but the entry is the vendor library '" + e.origin.substr(7) + "'");
    if (!e.vendor() && !files.contains("source")) fail(at + ".files", "lacks 'source'");
    for (const auto& [kind, path] : files.items()) {
      e.files[kind] = relative_path(path, at + ".files." + kind);
      const std::string h = text(hashes, kind, at + ".sha256");
      if (h.size() != 64 || h.find_first_not_of("0123456789abcdef") != std::string::npos)
        fail(at + ".sha256." + kind, "is not 64 lowercase hex digits");
      e.sha256[kind] = h;
    }
    if (!e.vendor() && !files.contains("ptx") && !files.contains("cubin")) fail(at + ".files", "has neither 'ptx' nor 'cubin'");

    e.time_ms = number(j, "time_ms", at);
    if (j.contains("baseline_ms")) e.baseline_ms = number(j, "baseline_ms", at);
    if (j.contains("resources") && j["resources"].is_object()) {
      const auto& r = j["resources"];
      Resources res;
      auto get = [&](const char* k, int& out) {
        if (r.contains(k)) out = static_cast<int>(integer(r[k], at + ".resources." + k));
      };
      get("registers", res.registers);
      get("spill_stores", res.spill_stores);
      get("spill_loads", res.spill_loads);
      get("shared_bytes", res.shared_bytes);
      get("stack_bytes", res.stack_bytes);
      res.compiler = text_or(r, "compiler", at + ".resources");
      e.resources = res;
    }
    return e;
  }
};

}  // namespace detail

/// Checks and reads a parsed manifest; `file` names it in errors. Throws KernelCacheError for
/// another program's file, a format newer than kFormatVersion, or a malformed entry.
inline Manifest parse_manifest(const nlohmann::json& j, const std::string& file) {
  detail::ManifestReader r{file};
  if (!j.is_object() || !j.contains("format") || j["format"] != "hone-kernel-cache")
    r.fail("", "is not a hone kernel cache manifest (no \"format\": \"hone-kernel-cache\")");
  Manifest m;
  m.format_version = static_cast<int>(r.integer(r.field(j, "format_version", ""), "format_version"));
  if (m.format_version > kFormatVersion)
    r.fail("", "format version " + std::to_string(m.format_version) + " is newer than this loader reads (" +
                   std::to_string(kFormatVersion) + "); use the loader of the hone that wrote it");
  if (m.format_version < 1) r.fail("format_version", "must be 1 or more");
  m.hone_version = r.text_or(j, "hone_version", "");
  m.compiler = r.text_or(j, "compiler", "");
  m.created_at = r.text_or(j, "created_at", "");
  const auto& entries = r.field(j, "entries", "");
  if (!entries.is_array()) r.fail("entries", "is not a list");
  for (std::size_t i = 0; i < entries.size(); ++i) m.entries.push_back(r.entry(entries[i], i));
  return m;
}

/// Reads and checks `<dir>/manifest.json`.
inline Manifest read_manifest(const std::string& dir) {
  const std::string file = dir + "/manifest.json";
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw KernelCacheError(file + ": cannot be read (is " + dir + " a hone kernel cache?)");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw KernelCacheError(file + ": is not valid JSON (" + e.what() + ")");
  }
  return parse_manifest(j, file);
}

}  // namespace hone::kernel_cache
