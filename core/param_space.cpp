#include "core/param_space.hpp"

namespace hone {

std::uint64_t ParamSpace::size() const {
  std::uint64_t n = 1;
  for (const auto& [name, values] : params) n *= values.size();
  return n;
}

bool ParamSpace::satisfies(const Config& config, const Bindings& shape, std::string* why) const {
  Bindings all = shape;
  for (const auto& [k, v] : config) all[k] = v;
  for (const auto& c : constraints) {
    bool ok = false;
    try {
      ok = c.eval(all) != 0;
    } catch (const ExprError& e) {
      if (why) *why = e.what();
      return false;
    }
    if (!ok) {
      if (why) *why = "constraint '" + c.text() + "' does not hold";
      return false;
    }
  }
  return true;
}

std::vector<Config> ParamSpace::valid_configs(const Bindings& shape) const {
  std::vector<Config> out;
  std::vector<size_t> index(params.size(), 0);
  if (params.empty()) {
    if (satisfies({}, shape)) out.push_back({});
    return out;
  }
  for (;;) {
    Config c;
    for (size_t i = 0; i < params.size(); ++i) c[params[i].first] = params[i].second[index[i]];
    if (satisfies(c, shape)) out.push_back(std::move(c));
    size_t i = params.size();
    while (i > 0) {
      --i;
      if (++index[i] < params[i].second.size()) break;
      index[i] = 0;
      if (i == 0) return out;
    }
  }
}

std::string config_to_string(const Config& config) {
  std::string s;
  for (const auto& [k, v] : config) {
    if (!s.empty()) s += ",";
    s += k + "=" + std::to_string(v);
  }
  return s;
}

}  // namespace hone
