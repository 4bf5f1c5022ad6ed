#include "core/model_shapes.hpp"

#include <set>

#include "core/input_error.hpp"
#include "core/json_file.hpp"

namespace hone {

using nlohmann::json;

std::vector<Bucket> buckets_from_bounds(const std::vector<std::int64_t>& bounds) {
  std::vector<Bucket> out;
  std::int64_t lo = 1;
  for (auto hi : bounds) {
    out.push_back({lo, hi});
    lo = hi + 1;
  }
  return out;
}

std::vector<std::int64_t> default_bucket_bounds() { return {1, 2, 4, 8, 16, 32, 64}; }

ModelShapes load_model_shapes(const std::filesystem::path& file) {
  const std::string f = file.string();
  auto fail = [&](const std::string& problem) { throw input_error(f, problem); };
  json j = read_json_file(file);
  if (!j.is_object()) fail("must hold a JSON object");

  ModelShapes m;
  m.file = file;
  const json& model = require_field(j, "model", f, "the shapes file");
  if (!model.is_string() || model.get<std::string>().empty()) fail("'model' must be a non-empty string");
  m.model = model.get<std::string>();
  m.config = j.value("config", json::object());

  const json& dyn = require_field(j, "dynamic", f, "the shapes file");
  if (!dyn.is_object() || dyn.empty()) fail("'dynamic' must map each dynamic dim to its buckets");
  std::set<std::string> dyn_names;
  for (const auto& [name, spec] : dyn.items()) {
    DynamicDim d;
    d.name = name;
    std::vector<std::int64_t> bounds = default_bucket_bounds();
    if (spec.is_object() && spec.contains("buckets")) {
      const json& b = spec["buckets"];
      if (!b.is_array() || b.empty()) fail("dynamic." + name + ".buckets must be a non-empty list of integers");
      bounds.clear();
      for (const auto& x : b) {
        if (!x.is_number_integer() || x.get<std::int64_t>() <= 0) fail("dynamic." + name + ".buckets must hold positive integers");
        if (!bounds.empty() && x.get<std::int64_t>() <= bounds.back()) fail("dynamic." + name + ".buckets must increase");
        bounds.push_back(x.get<std::int64_t>());
      }
    } else if (!spec.is_object()) {
      fail("dynamic." + name + " must be an object (with optional \"buckets\")");
    }
    d.buckets = buckets_from_bounds(bounds);
    dyn_names.insert(name);
    m.dynamic.push_back(std::move(d));
  }

  const json& ops = require_field(j, "ops", f, "the shapes file");
  if (!ops.is_array() || ops.empty()) fail("'ops' must be a non-empty list");
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string where = "ops[" + std::to_string(i) + "]";
    const json& oj = ops[i];
    if (!oj.is_object()) fail(where + " must be an object");
    ModelOp op;
    const json& name = require_field(oj, "name", f, where);
    const json& fam = require_field(oj, "op", f, where);
    if (!name.is_string() || !fam.is_string()) fail(where + ": 'name' and 'op' must be strings");
    op.name = name.get<std::string>();
    op.op = fam.get<std::string>();
    const json& dims = require_field(oj, "dims", f, where);
    if (!dims.is_object() || dims.empty()) fail(where + ".dims must map op symbols to integers or expressions");
    for (const auto& [sym, v] : dims.items()) {
      Expr e;
      try {
        if (v.is_number_integer()) {
          // 0 is a flag's "off" (the op's spec says which symbols are flags; tasks check it there).
          if (v.get<std::int64_t>() < 0) fail(where + ".dims." + sym + " must not be negative");
          e = Expr::constant(v.get<std::int64_t>());
        } else if (v.is_string()) {
          e = Expr::parse(v.get<std::string>());
        } else {
          fail(where + ".dims." + sym + " must be an integer or an expression of " + [&] {
            std::string s;
            for (const auto& n : dyn_names) s += (s.empty() ? "" : ", ") + n;
            return s;
          }());
        }
      } catch (const ExprError& err) {
        fail(where + ".dims." + sym + ": " + err.what());
      }
      for (const auto& s : e.symbols())
        if (!dyn_names.count(s)) fail(where + ".dims." + sym + " uses '" + s + "', which is not a dynamic dim of the model");
      op.dims[sym] = e;
    }
    if (oj.contains("scalars")) {
      if (!oj["scalars"].is_object()) fail(where + ".scalars must map argument names to numbers");
      for (const auto& [k, v] : oj["scalars"].items()) {
        if (!v.is_number()) fail(where + ".scalars." + k + " must be a number");
        op.scalars[k] = v.get<double>();
      }
    }
    m.ops.push_back(std::move(op));
  }

  if (j.contains("not_tuned")) {
    const json& nt = j["not_tuned"];
    if (!nt.is_array()) fail("'not_tuned' must be a list");
    for (size_t i = 0; i < nt.size(); ++i) {
      const std::string where = "not_tuned[" + std::to_string(i) + "]";
      const json& e = nt[i];
      if (!e.is_object()) fail(where + " must be an object");
      NotTunedOp n;
      const json& name = require_field(e, "name", f, where);
      const json& reason = require_field(e, "reason", f, where);
      if (!name.is_string() || !reason.is_string()) fail(where + ": 'name' and 'reason' must be strings");
      n.name = name.get<std::string>();
      n.reason = reason.get<std::string>();
      const char* key = e.contains("family_needed") ? "family_needed" : "op";
      const json& fam = require_field(e, key, f, where + " (it names 'family_needed' or 'op')");
      if (!fam.is_string()) fail(where + "." + key + " must be a string");
      n.family = fam.get<std::string>();
      if (e.contains("dims") && !e["dims"].is_object()) fail(where + ".dims must be an object");
      n.dims = e.value("dims", json::object());
      m.not_tuned.push_back(std::move(n));
    }
  }
  return m;
}

}  // namespace hone
