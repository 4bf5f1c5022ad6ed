#include "core/launch_rule.hpp"

#include "core/input_error.hpp"

namespace hone {

namespace {

Expr parse_dim(const nlohmann::json& v, const std::string& file, const std::string& where) {
  try {
    if (v.is_number_integer()) return Expr::constant(v.get<std::int64_t>());
    if (v.is_string()) return Expr::parse(v.get<std::string>());
  } catch (const ExprError& e) {
    throw input_error(file, where + ": " + e.what());
  }
  throw input_error(file, where + " must be an integer or an expression string");
}

std::array<Expr, 3> parse_dims(const nlohmann::json& v, const std::string& file, const std::string& where) {
  std::array<Expr, 3> out{Expr::constant(1), Expr::constant(1), Expr::constant(1)};
  if (!v.is_array()) {
    out[0] = parse_dim(v, file, where);
    return out;
  }
  if (v.empty() || v.size() > 3) throw input_error(file, where + " must list one to three dimensions");
  for (size_t i = 0; i < v.size(); ++i) out[i] = parse_dim(v[i], file, where + "[" + std::to_string(i) + "]");
  return out;
}

}  // namespace

LaunchDims LaunchRule::eval(const Bindings& symbols) const {
  LaunchDims d;
  for (int i = 0; i < 3; ++i) {
    d.grid[i] = grid[i].eval(symbols);
    d.block[i] = block[i].eval(symbols);
    if (d.grid[i] <= 0) throw InputError("grid dimension " + std::to_string(i) + " ('" + grid[i].text() + "') is " + std::to_string(d.grid[i]));
    if (d.block[i] <= 0) throw InputError("block dimension " + std::to_string(i) + " ('" + block[i].text() + "') is " + std::to_string(d.block[i]));
  }
  d.smem = smem.eval(symbols);
  if (d.smem < 0) throw InputError("dynamic shared memory ('" + smem.text() + "') is negative");
  if (d.threads_per_block() > 1024)
    throw InputError("block of " + std::to_string(d.threads_per_block()) + " threads exceeds 1024");
  return d;
}

nlohmann::json LaunchRule::to_json() const {
  nlohmann::json j;
  j["grid"] = {grid[0].text(), grid[1].text(), grid[2].text()};
  j["block"] = {block[0].text(), block[1].text(), block[2].text()};
  j["smem"] = smem.text();
  return j;
}

LaunchRule LaunchRule::bind(const Bindings& symbols) const {
  LaunchRule r;
  for (int i = 0; i < 3; ++i) {
    r.grid[i] = grid[i].bind(symbols);
    r.block[i] = block[i].bind(symbols);
  }
  r.smem = smem.bind(symbols);
  return r;
}

LaunchRule parse_launch_rule(const nlohmann::json& j, const std::string& file, const std::string& where) {
  if (!j.is_object()) throw input_error(file, where + " must be an object with grid, block and smem");
  LaunchRule r;
  if (!j.contains("grid")) throw input_error(file, where + " lacks 'grid'");
  if (!j.contains("block")) throw input_error(file, where + " lacks 'block'");
  r.grid = parse_dims(j["grid"], file, where + ".grid");
  r.block = parse_dims(j["block"], file, where + ".block");
  if (j.contains("smem")) r.smem = parse_dim(j["smem"], file, where + ".smem");
  return r;
}

std::array<Expr, 3> parse_dim_list(const std::string& text) {
  std::array<Expr, 3> out{Expr::constant(1), Expr::constant(1), Expr::constant(1)};
  // Split on commas at parenthesis depth 0, so that min(a,b) stays one expression.
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(cur);
  if (parts.size() > 3) throw InputError("'" + text + "' has more than three dimensions");
  for (size_t i = 0; i < parts.size(); ++i) {
    try {
      out[i] = Expr::parse(parts[i]);
    } catch (const ExprError& e) {
      throw InputError(e.what());
    }
  }
  return out;
}

}  // namespace hone
