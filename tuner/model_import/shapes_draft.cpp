#include "tuner/model_import/shapes_draft.hpp"

#include <algorithm>

#include "core/expr.hpp"

namespace hone {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// Why the family cannot take the op as the importer writes it, or "" when it can.
std::string contract_mismatch(const DraftOp& op, const FamilySymbols& f) {
  std::vector<std::string> given, missing, extra, not_static;
  for (const auto& [k, v] : op.dims.items()) {
    given.push_back(k);
    if (std::find(f.symbols.begin(), f.symbols.end(), k) == f.symbols.end()) extra.push_back(k);
    else if (v.is_string() && !f.dynamic.count(k)) not_static.push_back(k);
  }
  for (const auto& s : f.symbols)
    if (!op.dims.contains(s)) missing.push_back(s);
  std::vector<std::string> bad_scalars;
  for (const auto& [k, v] : op.scalars.items())
    if (!f.float_scalars.count(k)) bad_scalars.push_back(k);
  std::string why;
  if (!missing.empty()) why += "its spec has symbols the importer does not give (" + joined(missing) + "); ";
  if (!extra.empty()) why += "the importer gives symbols its spec lacks (" + joined(extra) + "); ";
  if (!not_static.empty()) why += "its spec makes static what the importer gives as an expression (" + joined(not_static) + "); ";
  if (!bad_scalars.empty()) why += "its spec has no float argument " + joined(bad_scalars) + "; ";
  if (why.empty()) return "";
  return "templates/" + op.family + "/spec.json does not take the op as the importer writes it: " + why.substr(0, why.size() - 2) +
         " (tuner/model_import and the family's contract in DESIGN.md disagree)";
}

void compact(const OrderedJson& j, std::string& out) {
  if (j.is_object()) {
    out += "{";
    bool first = true;
    for (const auto& [k, v] : j.items()) {
      out += first ? "" : ", ";
      first = false;
      out += OrderedJson(k).dump() + ": ";
      compact(v, out);
    }
    out += "}";
  } else if (j.is_array()) {
    out += "[";
    for (std::size_t i = 0; i < j.size(); ++i) {
      out += i ? ", " : "";
      compact(j[i], out);
    }
    out += "]";
  } else {
    out += j.dump();
  }
}

std::string indented(const OrderedJson& j, int level) {
  std::string text = j.dump(2);
  std::string pad(level * 2, ' '), out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

void ShapesDraft::add(DraftOp op, const std::string& reason_if_missing) {
  auto it = families->find(op.family);
  if (it == families->end()) {
    skip(op.name, op.family, op.dims,
         reason_if_missing.empty() ? "hone has no " + op.family + " family yet (no templates/" + op.family + "/)" : reason_if_missing);
    return;
  }
  if (std::string why = contract_mismatch(op, it->second); !why.empty()) {
    OrderedJson e = {{"name", op.name}, {"op", op.family}, {"dims", op.dims}, {"reason", why}};
    not_tuned.push_back(std::move(e));
    return;
  }
  OrderedJson e = {{"name", op.name}, {"op", op.family}, {"dims", op.dims}};
  if (!op.scalars.empty()) e["scalars"] = op.scalars;
  if (!op.note.empty()) e["note"] = op.note;
  ops.push_back(std::move(e));
}

void ShapesDraft::skip(const std::string& name, const std::string& family_needed, OrderedJson dims, const std::string& reason) {
  OrderedJson e = {{"name", name}, {"family_needed", family_needed}};
  if (!dims.empty()) e["dims"] = std::move(dims);
  e["reason"] = reason;
  not_tuned.push_back(std::move(e));
}

std::set<std::string> ShapesDraft::dynamic_dims() const {
  std::set<std::string> out;
  for (const auto& op : ops)
    for (const auto& [k, v] : op["dims"].items())
      if (v.is_string())
        for (const auto& s : Expr::parse(v.get<std::string>()).symbols()) out.insert(s);
  return out;
}

std::string tokens_times(std::int64_t n) { return n == 1 ? "tokens" : "tokens*" + std::to_string(n); }

std::string shapes_text(const OrderedJson& doc) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& [k, v] : doc.items()) {
    out += first ? "" : ",\n";
    first = false;
    out += "  " + OrderedJson(k).dump() + ": ";
    if ((k == "ops" || k == "not_tuned" || k == "notes") && v.is_array()) {
      out += "[\n";
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += "    ";
        compact(v[i], out);
        out += i + 1 < v.size() ? ",\n" : "\n";
      }
      out += "  ]";
    } else if (k == "dynamic" && v.is_object()) {
      out += "{\n";
      bool f = true;
      for (const auto& [dk, dv] : v.items()) {
        out += f ? "" : ",\n";
        f = false;
        out += "    " + OrderedJson(dk).dump() + ": ";
        compact(dv, out);
      }
      out += "\n  }";
    } else {
      out += indented(v, 1);
    }
  }
  return out + "\n}\n";
}

}  // namespace hone
