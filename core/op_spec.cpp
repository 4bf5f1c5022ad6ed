#include "core/op_spec.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "core/index_generator.hpp"
#include "core/index_inputs.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/sha256.hpp"

namespace hone {

namespace {

using nlohmann::json;

struct SpecReader {
  std::string file;

  [[noreturn]] void fail(const std::string& problem) const { throw input_error(file, problem); }

  // A misspelt key would be dropped silently (a list of hidden cases that never runs), so every
  // object of the format names the keys it may hold.
  void known_keys(const json& j, const std::string& where, std::initializer_list<const char*> known) const {
    if (!j.is_object()) return;
    for (const auto& item : j.items()) {
      bool ok = false;
      for (const char* k : known) ok = ok || item.key() == k;
      if (ok) continue;
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      fail(where + ": unknown key '" + item.key() + "' (the keys are " + list + ")");
    }
  }

  std::string string_field(const json& j, const std::string& key, const std::string& where) const {
    const json& v = require_field(j, key, file, where);
    if (!v.is_string() || v.get<std::string>().empty()) fail(where + "." + key + " must be a non-empty string");
    return v.get<std::string>();
  }

  Expr expr(const json& v, const std::string& where, const std::set<std::string>& allowed) const {
    Expr e;
    try {
      if (v.is_number_integer()) e = Expr::constant(v.get<std::int64_t>());
      else if (v.is_string()) e = Expr::parse(v.get<std::string>());
      else fail(where + " must be an integer or an expression string");
    } catch (const ExprError& err) {
      fail(where + ": " + err.what());
    }
    check_symbols(e, where, allowed);
    return e;
  }

  void check_symbols(const Expr& e, const std::string& where, const std::set<std::string>& allowed) const {
    for (const auto& s : e.symbols())
      if (!allowed.count(s)) fail(where + " uses '" + s + "', which is not defined there");
  }

  KernelSource source(const std::filesystem::path& dir, const json& j, const std::string& where) const {
    KernelSource src;
    src.path = dir / string_field(j, "source", where);
    if (!std::filesystem::is_regular_file(src.path)) fail(where + ".source names " + src.path.string() + ", which does not exist");
    std::set<std::filesystem::path> seen;
    src.text = inline_local_includes(src.path, {dir, dir.parent_path() / "common"}, seen);
    return src;
  }

  // A candidate is one self-contained translation unit (stored, exported, compiled anywhere), so
  // `#include "file"` lines of templates are replaced by the file, each file once.
  std::string inline_local_includes(const std::filesystem::path& file, const std::vector<std::filesystem::path>& search,
                                    std::set<std::filesystem::path>& seen) const {
    static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)"\s*$)re");
    static const std::regex once_re(R"(^\s*#\s*pragma\s+once\s*$)");
    seen.insert(std::filesystem::weakly_canonical(file));
    std::istringstream in(read_text_file(file));
    std::string line, out;
    std::smatch m;
    while (std::getline(in, line)) {
      if (std::regex_match(line, once_re)) continue;
      if (std::regex_match(line, m, include_re)) {
        std::filesystem::path found;
        for (const auto& d : search)
          if (std::filesystem::is_regular_file(d / m[1].str())) {
            found = d / m[1].str();
            break;
          }
        if (found.empty()) fail(file.string() + " includes \"" + m[1].str() + "\", which is in neither its folder nor templates/common");
        if (!seen.count(std::filesystem::weakly_canonical(found))) out += inline_local_includes(found, search, seen);
        continue;
      }
      out += line + "\n";
    }
    return out;
  }

  InputDist dist(const json& j, const std::string& where) const {
    InputDist d;
    if (!j.is_object()) fail(where + " must be an object like {\"dist\": \"normal\", \"std\": 1}");
    d.kind = j.value("dist", "normal");
    if (d.kind != "normal" && d.kind != "uniform") fail(where + ".dist must be \"normal\" or \"uniform\", not \"" + d.kind + "\"");
    d.mean = j.value("mean", 0.0);
    d.std = j.value("std", 1.0);
    d.lo = j.value("lo", -1.0);
    d.hi = j.value("hi", 1.0);
    if (d.kind == "uniform" && !(d.lo < d.hi)) fail(where + ": uniform needs lo < hi");
    if (j.contains("row_scale")) {
      const json& rs = j["row_scale"];
      if (!rs.is_array() || rs.size() != 2 || !rs[0].is_number() || !rs[1].is_number() || !(rs[0].get<double>() > 0) ||
          !(rs[0].get<double>() <= rs[1].get<double>()))
        fail(where + ".row_scale must be [lo, hi] with 0 < lo <= hi");
      d.row_scale_lo = rs[0].get<double>();
      d.row_scale_hi = rs[1].get<double>();
    }
    if (d.kind == "normal" && !(d.std > 0)) fail(where + ": normal needs std > 0");
    return d;
  }

  // {"index": KIND, param: expression or argument name, ...}; the generator says which parameters
  // it takes and which of them name arguments.
  IndexInit index_init(const ArgSpec& a, const json& j, const std::string& where, const std::set<std::string>& symbols) const {
    IndexInit init;
    init.kind = string_field(j, "index", where);
    const IndexGenerator* g = find_index_generator(init.kind);
    if (!g) {
      std::string known;
      for (const IndexGenerator* k : index_generators()) known += (known.empty() ? "" : ", ") + k->kind;
      fail(where + ".index '" + init.kind + "' is not an index generator (known: " + known + ")");
    }
    if (g->dtypes.empty() && dtype_is_float(a.dtype)) fail(where + ": an index input holds integers, not " + dtype_name(a.dtype));
    if (!g->dtypes.empty() && std::find(g->dtypes.begin(), g->dtypes.end(), a.dtype) == g->dtypes.end()) {
      std::string known;
      for (DType t : g->dtypes) known += (known.empty() ? "" : " or ") + dtype_name(t);
      fail(where + ": a " + init.kind + " input holds " + known + ", not " + dtype_name(a.dtype));
    }
    if (a.dims.size() != g->rank)
      fail(where + ": a " + init.kind + " input has " + std::to_string(g->rank) + " dims, '" + a.name + "' has " + std::to_string(a.dims.size()));
    for (const auto& [key, value] : j.items()) {
      if (key == "index") continue;
      auto p = std::find_if(g->params.begin(), g->params.end(), [&](const IndexParam& q) { return q.name == key; });
      if (p == g->params.end()) fail(where + "." + key + " is not a parameter of " + init.kind);
      if (p->input) {
        if (!value.is_string()) fail(where + "." + key + " must name another argument");
        init.inputs[key] = value.get<std::string>();
      } else {
        init.params[key] = expr(value, where + "." + key, symbols);
      }
    }
    for (const auto& p : g->params) {
      if (init.params.count(p.name) || init.inputs.count(p.name)) continue;
      if (p.default_value.empty()) fail(where + " lacks '" + p.name + "', a parameter of " + init.kind);
      init.params[p.name] = Expr::parse(p.default_value);
    }
    return init;
  }

  AddressedBy addressed_by(const json& j, const std::string& where, std::set<std::string> symbols) const {
    if (!j.is_object()) fail(where + " must be {\"index\": ARG, \"extent\": E, [\"offset\": E of item]}");
    AddressedBy by;
    by.index = string_field(j, "index", where);
    by.extent = expr(require_field(j, "extent", file, where), where + ".extent", symbols);
    if (symbols.count("item")) fail(where + ": 'item' is the addressed item in offset, so no shape symbol may be called so");
    symbols.insert("item");
    if (j.contains("offset")) by.offset = expr(j["offset"], where + ".offset", symbols);
    return by;
  }

  ArgSpec arg(const json& j, const std::string& where, const std::set<std::string>& symbols) const {
    known_keys(j, where, {"name", "type", "role", "dims", "init", "value", "range", "addressed_by", "zeroed"});
    ArgSpec a;
    a.name = string_field(j, "name", where);
    std::string type = string_field(j, "type", where);
    std::string t = type;
    if (t.rfind("const ", 0) == 0) {
      a.is_const = true;
      t = t.substr(6);
    }
    if (!t.empty() && t.back() == '*') {
      a.pointer = true;
      t.pop_back();
    }
    try {
      a.dtype = parse_dtype(t);
    } catch (const InputError& e) {
      fail(where + ".type '" + type + "': " + e.what());
    }
    if (a.pointer) {
      std::string role = string_field(j, "role", where);
      if (role == "in") a.role = ArgRole::In;
      else if (role == "out") a.role = ArgRole::Out;
      else if (role == "inout") a.role = ArgRole::InOut;
      else if (role == "scratch") a.role = ArgRole::Scratch;
      else fail(where + ".role must be in, out, inout or scratch, not '" + role + "'");
      if (a.is_const != (a.role == ArgRole::In)) fail(where + ": a pointer is const exactly when its role is 'in'");
      const json& dims = require_field(j, "dims", file, where);
      if (!dims.is_array() || dims.empty()) fail(where + ".dims must be a non-empty list");
      for (size_t i = 0; i < dims.size(); ++i) a.dims.push_back(expr(dims[i], where + ".dims[" + std::to_string(i) + "]", symbols));
      const json init = j.value("init", json::object());
      if (a.role == ArgRole::In && init.is_object() && init.contains("index")) a.index = index_init(a, init, where + ".init", symbols);
      else if (a.role == ArgRole::In || a.role == ArgRole::InOut) a.init = dist(init, where + ".init");
      else if (j.contains("init")) fail(where + ": only in and inout buffers have an init");
      if (j.contains("addressed_by")) {
        if (a.role != ArgRole::In && a.role != ArgRole::InOut) fail(where + ".addressed_by: only in and inout buffers are addressed by an index");
        if (a.index) fail(where + ".addressed_by: an index input is not itself addressed by another");
        a.addressed = addressed_by(j["addressed_by"], where + ".addressed_by", symbols);
      }
      if (j.contains("zeroed")) {
        if (a.role != ArgRole::Scratch) fail(where + ".zeroed: only a scratch buffer has a zeroed part");
        a.zeroed = expr(j["zeroed"], where + ".zeroed", symbols);
      }
    } else {
      a.role = ArgRole::Scalar;
      if (a.is_const) fail(where + ": scalar arguments are passed by value, drop 'const'");
      const json& v = require_field(j, "value", file, where);
      if (dtype_is_float(a.dtype)) {
        if (!v.is_number()) fail(where + ".value of a float scalar must be a number");
        a.float_value = v.get<double>();
        scalar_range(j, where, a);
      } else {
        a.int_value = expr(v, where + ".value", symbols);
        if (j.contains("range")) fail(where + ".range: only float scalars have a range; an integer scalar is a shape symbol's value");
      }
    }
    return a;
  }

  // A runtime scalar (eps, scale) takes whatever an engine passes: the spec names the values it
  // may be, and the hidden tests draw from them.
  void scalar_range(const json& j, const std::string& where, ArgSpec& a) const {
    if (!j.contains("range"))
      fail(where + " needs \"range\": [lo, hi], the values engines pass for '" + a.name + "' (the hidden tests draw from it)");
    const json& r = j["range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() || !(r[0].get<double>() <= r[1].get<double>()))
      fail(where + ".range must be [lo, hi] with lo <= hi");
    a.range_lo = r[0].get<double>();
    a.range_hi = r[1].get<double>();
  }

  std::map<DType, Tolerance> tolerances(const json& tol, const std::string& where) const {
    if (!tol.is_object() || tol.empty()) fail(where + " must map dtypes to {atol, rtol}");
    std::map<DType, Tolerance> out;
    for (const auto& [k, v] : tol.items()) {
      DType t;
      try {
        t = parse_dtype(k);
      } catch (const InputError& e) {
        fail(where + ": " + e.what());
      }
      if (!v.is_object() || !v.contains("atol") || !v.contains("rtol") || !v["atol"].is_number() || !v["rtol"].is_number())
        fail(where + "." + k + " must be {\"atol\": number, \"rtol\": number, [\"row_rtol\": number]}");
      known_keys(v, where + "." + k, {"atol", "rtol", "row_rtol"});
      if (v.contains("row_rtol") && (!v["row_rtol"].is_number() || v["row_rtol"].get<double>() < 0))
        fail(where + "." + k + ".row_rtol must be a number >= 0");
      out[t] = Tolerance{v["atol"].get<double>(), v["rtol"].get<double>(), v.value("row_rtol", 0.0)};
    }
    return out;
  }

  std::vector<InputCase> cases(const json& j, const std::string& where, const std::vector<ArgSpec>& args) const {
    std::vector<InputCase> out;
    if (!j.is_array()) fail(where + " must be a list of {name, args, [tolerance], [scalars]}");
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      known_keys(j[i], at, {"name", "args", "tolerance", "scalars"});
      InputCase c;
      c.name = string_field(j[i], "name", at);
      const json& a = require_field(j[i], "args", file, at);
      if (!a.is_object() || (a.empty() && !j[i].contains("scalars"))) fail(at + ".args must map input arguments to distributions");
      for (const auto& [name, dist_json] : a.items()) {
        auto it = std::find_if(args.begin(), args.end(), [&](const ArgSpec& s) { return s.name == name; });
        if (it == args.end() || !it->pointer || (it->role != ArgRole::In && it->role != ArgRole::InOut))
          fail(at + ".args names '" + name + "', which is not an input buffer");
        if (it->index) fail(at + ".args names '" + name + "', an index input: its generator's modes are its cases");
        c.args[name] = dist(dist_json, at + ".args." + name);
      }
      if (j[i].contains("tolerance")) c.tolerance = tolerances(j[i]["tolerance"], at + ".tolerance");
      if (j[i].contains("scalars")) {
        const json& sc = j[i]["scalars"];
        if (!sc.is_object()) fail(at + ".scalars must map float scalar arguments to numbers");
        for (const auto& [name, v] : sc.items()) {
          auto it = std::find_if(args.begin(), args.end(), [&](const ArgSpec& s) { return s.name == name; });
          if (it == args.end() || it->pointer || !dtype_is_float(it->dtype) || !v.is_number())
            fail(at + ".scalars." + name + " must be a number for a float scalar argument");
          c.scalars[name] = v.get<double>();
        }
      }
      out.push_back(std::move(c));
    }
    return out;
  }

  LaunchRule launch(const json& j, const std::string& where, const std::set<std::string>& allowed) const {
    LaunchRule r = parse_launch_rule(j, file, where);
    for (int i = 0; i < 3; ++i) {
      check_symbols(r.grid[i], where + ".grid", allowed);
      check_symbols(r.block[i], where + ".block", allowed);
    }
    check_symbols(r.smem, where + ".smem", allowed);
    return r;
  }
};

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::string ArgSpec::cuda_type() const {
  std::string t = dtype_cuda_type(dtype);
  return pointer ? (is_const ? "const " : "") + t + "*" : t;
}

std::int64_t ArgSpec::elements(const Bindings& shape) const {
  std::int64_t n = 1;
  for (const auto& d : dims) n *= d.eval(shape);
  return n;
}

std::string OpSpec::signature() const {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) s += ", ";
    const ArgSpec& a = args[i];
    // Spelled as DESIGN.md writes the contracts: bf16 for __nv_bfloat16, fp8 for __nv_fp8_e4m3, C
    // names for the rest.
    const bool short_name = a.dtype == DType::bf16 || a.dtype == DType::f16 || a.dtype == DType::fp8;
    const std::string t = short_name ? dtype_name(a.dtype) : dtype_cuda_type(a.dtype);
    s += std::string(a.is_const ? "const " : "") + t + (a.pointer ? "* " : " ") + a.name;
  }
  return s + ")";
}

const ArgSpec* OpSpec::find_arg(const std::string& arg_name) const {
  for (const auto& a : args)
    if (a.name == arg_name) return &a;
  return nullptr;
}

std::size_t OpSpec::arg_index(const std::string& arg_name) const {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].name == arg_name) return i;
  throw std::out_of_range(name + " has no argument '" + arg_name + "'");
}

Tolerance OpSpec::tolerance_for(DType dtype, const InputCase* input_case) const {
  if (input_case) {
    auto it = input_case->tolerance.find(dtype);
    if (it != input_case->tolerance.end()) return it->second;
  }
  return tolerance.at(dtype);
}

void OpSpec::check_shape(const Bindings& shape) const {
  for (const auto& s : symbols) {
    auto it = shape.find(s);
    if (it == shape.end()) throw InputError("the shape of " + name + " lacks '" + s + "'");
    if (flags.count(s)) {
      if (it->second != 0 && it->second != 1)
        throw InputError("the shape of " + name + " has " + s + "=" + std::to_string(it->second) + "; it is a flag: 0 or 1");
    } else if (it->second <= 0) {
      throw InputError("the shape of " + name + " has " + s + "=" + std::to_string(it->second) + "; it must be positive");
    }
  }
  for (const auto& [k, v] : shape)
    if (std::find(symbols.begin(), symbols.end(), k) == symbols.end())
      throw InputError(name + " has no shape symbol '" + k + "' (it has: " + [&] {
        std::string all;
        for (const auto& s : symbols) all += (all.empty() ? "" : ", ") + s;
        return all;
      }() + ")");
}

OpSpec load_op_spec(const std::filesystem::path& dir) {
  const std::filesystem::path spec_path = dir / "spec.json";
  SpecReader r{spec_path.string()};
  json j = read_json_file(spec_path);
  if (!j.is_object()) r.fail("must hold a JSON object");
  r.known_keys(j, "the spec",
               {"op", "summary", "symbols", "dynamic", "flags", "example_shape", "args", "aliases", "chain", "tolerance", "tolerance_note",
                "input_cases", "hidden_cases", "flops", "bytes", "reference", "variants"});

  OpSpec op;
  op.dir = dir;
  op.name = r.string_field(j, "op", "the spec");
  if (!is_identifier(op.name)) r.fail("op '" + op.name + "' is not an identifier");
  op.summary = j.value("summary", "");

  const json& syms = require_field(j, "symbols", r.file, "the spec");
  if (!syms.is_array() || syms.empty()) r.fail("symbols must be a non-empty list of names");
  std::set<std::string> symbol_set;
  for (const auto& s : syms) {
    if (!s.is_string() || !is_identifier(s.get<std::string>())) r.fail("symbols must be identifiers");
    op.symbols.push_back(s.get<std::string>());
    symbol_set.insert(s.get<std::string>());
  }
  for (const auto& s : j.value("dynamic", json::array())) {
    if (!s.is_string() || !symbol_set.count(s.get<std::string>())) r.fail("dynamic names '" + s.dump() + "', which is not a symbol");
    op.dynamic.insert(s.get<std::string>());
  }
  std::set<std::string> static_symbols;
  for (const auto& s : op.symbols)
    if (!op.dynamic.count(s)) static_symbols.insert(s);
  for (const auto& s : j.value("flags", json::array())) {
    if (!s.is_string() || !static_symbols.count(s.get<std::string>()))
      r.fail("flags names '" + s.dump() + "', which is not a static symbol");
    op.flags.insert(s.get<std::string>());
  }

  const json& args = require_field(j, "args", r.file, "the spec");
  if (!args.is_array() || args.empty()) r.fail("args must be a non-empty list");
  std::set<std::string> arg_names;
  for (size_t i = 0; i < args.size(); ++i) {
    ArgSpec a = r.arg(args[i], "args[" + std::to_string(i) + "]", symbol_set);
    if (!arg_names.insert(a.name).second) r.fail("args has '" + a.name + "' twice");
    op.args.push_back(std::move(a));
  }

  op.index_order = index_draw_order(op.args, r.file);
  for (const auto& a : op.args) {
    if (!a.addressed) continue;
    const ArgSpec* index = op.find_arg(a.addressed->index);
    const IndexGenerator* g = index && index->index ? find_index_generator(index->index->kind) : nullptr;
    if (!g || !g->items)
      r.fail("'" + a.name + "' addressed_by.index names '" + a.addressed->index + "', which is not an index input that addresses items");
  }
  for (const auto& pair : j.value("aliases", json::array())) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      r.fail("aliases must be a list of [out, input] pairs of argument names");
    const ArgSpec* w = op.find_arg(pair[0].get<std::string>());
    const ArgSpec* in = op.find_arg(pair[1].get<std::string>());
    const std::string what = "aliases " + pair.dump();
    if (!w || !w->pointer || w->role != ArgRole::Out) r.fail(what + ": the first must be an out buffer");
    if (!in || !in->pointer || in->role != ArgRole::In || in->index) r.fail(what + ": the second must be an in buffer");
    std::vector<std::string> wd, id;
    for (const auto& d : w->dims) wd.push_back(d.text());
    for (const auto& d : in->dims) id.push_back(d.text());
    if (w->dtype != in->dtype || wd != id) r.fail(what + ": a buffer may alias only one of the same dtype and dims");
    op.aliases.emplace_back(w->name, in->name);
  }
  if (j.contains("chain")) {
    const json& c = j["chain"];
    if (!c.is_object() || !c.contains("calls") || !c["calls"].is_number_integer() || c["calls"].get<int>() < 2 || c["calls"].get<int>() > 16)
      r.fail("chain must be {\"calls\": N} with 2 <= N <= 16");
    op.chain_calls = c["calls"].get<int>();
    if (std::none_of(op.args.begin(), op.args.end(), [](const ArgSpec& a) { return a.role == ArgRole::InOut; }))
      r.fail("chain: calls in a row carry in-out buffers, and this op has none");
  }

  op.tolerance = r.tolerances(require_field(j, "tolerance", r.file, "the spec"), "tolerance");
  if (j.contains("input_cases")) op.input_cases = r.cases(j["input_cases"], "input_cases", op.args);
  if (j.contains("hidden_cases")) op.hidden_cases = r.cases(j["hidden_cases"], "hidden_cases", op.args);
  for (const auto& a : op.args)
    if (a.pointer && (a.role == ArgRole::Out || a.role == ArgRole::InOut) && !op.tolerance.count(a.dtype))
      r.fail("tolerance has no entry for " + dtype_name(a.dtype) + ", the dtype of output '" + a.name + "'");

  op.flops = r.expr(require_field(j, "flops", r.file, "the spec"), "flops", symbol_set);
  op.bytes = r.expr(require_field(j, "bytes", r.file, "the spec"), "bytes", symbol_set);

  const json& ref = require_field(j, "reference", r.file, "the spec");
  r.known_keys(ref, "reference", {"source", "entry", "launch"});
  op.reference.source = r.source(dir, ref, "reference");
  op.reference.entry = r.string_field(ref, "entry", "reference");
  if (op.reference.source.text.find(op.reference.entry) == std::string::npos)
    r.fail("reference.entry '" + op.reference.entry + "' does not appear in " + op.reference.source.path.string());
  op.reference.launch = r.launch(require_field(ref, "launch", r.file, "reference"), "reference.launch", symbol_set);

  const json& variants = require_field(j, "variants", r.file, "the spec");
  if (!variants.is_array() || variants.empty()) r.fail("variants must be a non-empty list");
  for (size_t i = 0; i < variants.size(); ++i) {
    const json& vj = variants[i];
    const std::string where = "variants[" + std::to_string(i) + "]";
    r.known_keys(vj, where,
                 {"name", "source", "function", "params", "order", "template_args", "constraints", "launch", "when", "cluster"});
    Variant v;
    v.name = r.string_field(vj, "name", where);
    if (!is_identifier(v.name)) r.fail(where + ".name '" + v.name + "' is not an identifier");
    v.source = r.source(dir, vj, where);
    v.function = r.string_field(vj, "function", where);
    if (v.source.text.find(v.function) == std::string::npos)
      r.fail(where + ".function '" + v.function + "' does not appear in " + v.source.path.string());

    const json& params = require_field(vj, "params", r.file, where);
    if (!params.is_object()) r.fail(where + ".params must map names to lists of integers");
    std::set<std::string> in_scope = static_symbols;
    for (const auto& [name, values] : params.items()) {
      if (!is_identifier(name)) r.fail(where + ".params: '" + name + "' is not an identifier");
      if (symbol_set.count(name)) r.fail(where + ".params: '" + name + "' is also a shape symbol");
      if (!values.is_array() || values.empty()) r.fail(where + ".params." + name + " must be a non-empty list of integers");
      std::vector<std::int64_t> vals;
      for (const auto& x : values) {
        if (!x.is_number_integer()) r.fail(where + ".params." + name + " must hold integers only");
        vals.push_back(x.get<std::int64_t>());
      }
      v.space.params.emplace_back(name, std::move(vals));
      in_scope.insert(name);
    }
    // nlohmann's object keeps keys sorted; the declared order of "order" wins when given.
    if (vj.contains("order")) {
      std::vector<std::pair<std::string, std::vector<std::int64_t>>> ordered;
      for (const auto& n : vj["order"]) {
        auto it = std::find_if(v.space.params.begin(), v.space.params.end(), [&](const auto& p) { return p.first == n; });
        if (it == v.space.params.end()) r.fail(where + ".order names '" + n.dump() + "', which is not a parameter");
        ordered.push_back(*it);
      }
      if (ordered.size() != v.space.params.size()) r.fail(where + ".order must list every parameter once");
      v.space.params = std::move(ordered);
    }
    for (const auto& c : vj.value("constraints", json::array()))
      v.space.constraints.push_back(r.expr(c, where + ".constraints", in_scope));
    const json& targs = require_field(vj, "template_args", r.file, where);
    if (!targs.is_array()) r.fail(where + ".template_args must be a list of expressions");
    for (size_t k = 0; k < targs.size(); ++k)
      v.template_args.push_back(r.expr(targs[k], where + ".template_args[" + std::to_string(k) + "]", in_scope));
    std::set<std::string> launch_scope = in_scope;
    launch_scope.insert(op.dynamic.begin(), op.dynamic.end());
    v.launch = r.launch(require_field(vj, "launch", r.file, where), where + ".launch", launch_scope);
    if (vj.contains("cluster")) {
      const json& cj = vj["cluster"];
      if (!cj.is_array() || cj.empty() || cj.size() > 3) r.fail(where + ".cluster must be a list of 1 to 3 expressions");
      for (size_t k = 0; k < cj.size(); ++k)
        v.cluster.push_back(r.expr(cj[k], where + ".cluster[" + std::to_string(k) + "]", in_scope));
    }
    if (vj.contains("when")) {
      std::set<std::string> when_scope = symbol_set;
      for (const auto& [name, values] : v.space.params) when_scope.insert(name);
      v.when = r.expr(vj["when"], where + ".when", when_scope);
    }
    op.variants.push_back(std::move(v));
  }

  if (j.contains("example_shape")) {
    const json& ex = j["example_shape"];
    if (!ex.is_object()) r.fail("example_shape must map every symbol to a positive integer");
    for (const auto& [k, v] : ex.items()) {
      if (!v.is_number_integer()) r.fail("example_shape." + k + " must be an integer");
      op.example_shape[k] = v.get<std::int64_t>();
    }
    try {
      op.check_shape(op.example_shape);
    } catch (const InputError& e) {
      r.fail(std::string("example_shape: ") + e.what());
    }
  }

  std::string hash_input = read_text_file(spec_path);
  hash_input += op.reference.source.text;
  for (const auto& v : op.variants) hash_input += v.source.text;
  op.content_hash = sha256_hex(hash_input);
  return op;
}

std::vector<std::string> list_op_families(const std::filesystem::path& templates_root) {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(templates_root))
    throw input_error(templates_root.string(), "is not a directory of op families");
  for (const auto& e : std::filesystem::directory_iterator(templates_root))
    if (e.is_directory() && std::filesystem::is_regular_file(e.path() / "spec.json")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

OpSpec load_op(const std::filesystem::path& templates_root, const std::string& op) {
  std::filesystem::path dir = templates_root / op;
  if (!std::filesystem::is_regular_file(dir / "spec.json")) {
    std::string known;
    for (const auto& f : list_op_families(templates_root)) known += (known.empty() ? "" : ", ") + f;
    throw InputError("unknown op '" + op + "' (known: " + known + ")");
  }
  OpSpec spec = load_op_spec(dir);
  if (spec.name != op) throw input_error((dir / "spec.json").string(), "declares op '" + spec.name + "' but lives in folder '" + op + "'");
  return spec;
}

Bindings parse_shape_text(const std::string& text) {
  Bindings b;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("shape '" + text + "': item '" + item + "' is not k=v");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    try {
      size_t used = 0;
      long long v = std::stoll(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
      b[key] = v;
    } catch (const std::exception&) {
      throw InputError("shape '" + text + "': '" + value + "' is not an integer");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return b;
}

}  // namespace hone
