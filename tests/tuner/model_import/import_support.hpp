#pragma once
// Importing the configs of shapes/configs/ in the tests, and finding an op of the result whether
// it is tuned (ops) or listed as not tuned: the dims are checked either way.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "tuner/model_import/model_import.hpp"

namespace hone::test {

struct Imported {
  nlohmann::json doc;

  const nlohmann::json* find(const std::string& list, const std::string& name) const {
    if (!doc.contains(list)) return nullptr;
    for (const auto& e : doc[list])
      if (e["name"] == name) return &e;
    return nullptr;
  }
  bool tuned(const std::string& name) const { return find("ops", name) != nullptr; }
  bool listed(const std::string& name) const { return find("ops", name) || find("not_tuned", name); }
  const nlohmann::json& entry(const std::string& name) const {
    const nlohmann::json* e = find("ops", name);
    if (!e) e = find("not_tuned", name);
    REQUIRE_MESSAGE(e != nullptr, (std::string("no op '") + name + "' in the import of " + doc.value("model", std::string("?"))));
    return *e;
  }
  /// The family an op runs as, or the one it would need.
  std::string family(const std::string& name) const {
    const auto& e = entry(name);
    return e.contains("op") ? e["op"].get<std::string>() : e["family_needed"].get<std::string>();
  }
  std::int64_t dim(const std::string& name, const std::string& symbol) const {
    const auto& e = entry(name);
    REQUIRE_MESSAGE(e["dims"].contains(symbol), std::string(name + " has no dim " + symbol + ": " + e.dump()));
    REQUIRE_MESSAGE(e["dims"][symbol].is_number_integer(), std::string(name + "." + symbol + " is " + e["dims"][symbol].dump()));
    return e["dims"][symbol].get<std::int64_t>();
  }
  std::string expr(const std::string& name, const std::string& symbol) const { return entry(name)["dims"][symbol].get<std::string>(); }
};

inline std::filesystem::path config_path(const std::string& stem) { return hone_home() / "shapes" / "configs" / (stem + ".json"); }

inline Imported import_file(const std::filesystem::path& config, std::int64_t tp, const FamilyCatalog& families) {
  ImportOptions o;
  o.source = config;
  o.tp = tp;
  return {nlohmann::json::parse(import_model(o, families).text)};
}

inline Imported import_config(const std::string& stem, std::int64_t tp, const FamilyCatalog& families) {
  return import_file(config_path(stem), tp, families);
}

inline nlohmann::json read_config(const std::string& stem) { return nlohmann::json::parse(std::ifstream(config_path(stem))); }

/// A config written to a folder of its own, removed at the end of the test.
struct TempConfig {
  std::filesystem::path dir, file;
  TempConfig(const std::string& tag, const std::string& text, const std::string& name = "config.json")
      : dir(std::filesystem::temp_directory_path() / ("hone-import-" + tag + "-" + std::to_string(::getpid()))),
        file(dir / name) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::ofstream(file) << text;
  }
  TempConfig(const std::string& tag, const nlohmann::json& cfg) : TempConfig(tag, cfg.dump(2)) {}
  ~TempConfig() { std::filesystem::remove_all(dir); }
};

/// The families hone has today, under templates/.
/// The families under the templates root now: what the shipped shapes files are imported with.
inline const FamilyCatalog& installed_families() {
  static const FamilyCatalog c = load_family_catalog(templates_root());
  return c;
}

/// The four families hone began with (rmsnorm, silu_mul, gemv, gdn_decode), read from the
/// templates: fixed, so that these tests do not change as the next families land (those are
/// design_families()).
inline const FamilyCatalog& todays_families() {
  static const FamilyCatalog c = [] {
    const FamilyCatalog& all = installed_families();
    FamilyCatalog first;
    for (const char* name : {"rmsnorm", "silu_mul", "gemv", "gdn_decode"}) first.emplace(name, all.at(name));
    return first;
  }();
  return c;
}

/// Today's families and every family of DESIGN.md's "next families", with the symbols of their
/// signatures there (the int arguments) and their float scalars: what a re-import sees once
/// they have landed.
inline const FamilyCatalog& design_families() {
  static const FamilyCatalog c = [] {
    FamilyCatalog f = todays_families();
    auto add = [&](const std::string& name, std::vector<std::string> symbols, std::set<std::string> dynamic, std::set<std::string> floats) {
      f.emplace(name, FamilySymbols{std::move(symbols), std::move(dynamic), std::move(floats)});
    };
    add("gemv_fp8", {"M", "N", "K", "BN", "BK"}, {"M"}, {});
    add("gemv_w4", {"M", "N", "K", "G"}, {"M"}, {});
    add("fused_add_rmsnorm", {"tokens", "hidden"}, {"tokens"}, {"eps", "w_offset"});
    add("rope", {"tokens", "HQ", "HKV", "D", "ROT", "MAXPOS"}, {"tokens"}, {});
    add("qk_norm_rope", {"tokens", "HQ", "HKV", "D", "QH", "ROT", "MAXPOS"}, {"tokens"}, {"eps", "w_offset"});
    add("attention_decode", {"batch", "HQ", "HKV", "D", "PAGE", "MAXP", "q_stride", "page_stride"}, {"batch", "MAXP"}, {"scale"});
    add("causal_conv1d_update", {"B", "D", "W", "SLOTS"}, {"B"}, {});
    add("gdn_gated_decode", {"B", "H", "HV", "K", "V", "SLOTS"}, {"B"}, {"scale"});
    add("rmsnorm_gated", {"rows", "D"}, {"rows"}, {"eps"});
    add("moe_topk_softmax", {"tokens", "E", "TOPK", "renormalize"}, {"tokens"}, {});
    add("moe_gate_up", {"tokens", "E", "TOPK", "N", "K"}, {"tokens"}, {});
    add("moe_down", {"tokens", "E", "TOPK", "N", "K"}, {"tokens"}, {});
    return f;
  }();
  return c;
}

}  // namespace hone::test
