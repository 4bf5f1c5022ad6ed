#include "tuner/template_strategy_space.hpp"

#include <algorithm>
#include <set>

namespace hone {

std::shared_ptr<const SearchSpace> template_strategy_space(const std::vector<TemplatePoint>& points) {
  auto s = std::make_shared<SearchSpace>();
  std::vector<const Variant*> variants;
  std::set<std::string> names;
  for (const auto& p : points) {
    if (std::find(variants.begin(), variants.end(), p.variant) == variants.end()) variants.push_back(p.variant);
    for (const auto& [k, v] : p.config) names.insert(k);
  }
  s->params.push_back("variant");
  s->params.insert(s->params.end(), names.begin(), names.end());
  for (const auto& p : points) {
    std::vector<double> v{double(std::find(variants.begin(), variants.end(), p.variant) - variants.begin())};
    for (const auto& n : names) {
      auto it = p.config.find(n);
      v.push_back(it == p.config.end() ? -1.0 : double(it->second));
    }
    s->strata.push_back(static_cast<std::size_t>(v[0]));
    s->points.push_back(std::move(v));
  }
  return s;
}

}  // namespace hone
