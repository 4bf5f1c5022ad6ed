#include "knowledge_db/param_effects.hpp"

#include <algorithm>
#include <tuple>

namespace hone {

namespace {

struct GroupKey {
  std::string op, variant, param, device;
  auto tie() const { return std::tie(op, variant, param, device); }
  bool operator<(const GroupKey& o) const { return tie() < o.tie(); }
};

std::string key_text(const GroupKey& g) { return g.op + "|" + g.variant + "|" + g.param + "|" + g.device; }

// Within one task: the best measurement of each value of the parameter, among candidates of the
// variant. Other parameters vary freely, so "best" is the value's best configuration.
struct TaskComparison {
  std::int64_t task_id = 0;
  std::string winner;                 // value (JSON text)
  const Measurement* best = nullptr;  // the winner's best
  const Measurement* runner_up = nullptr;  // the best of every other value
};

std::map<GroupKey, std::vector<TaskComparison>> compare(const std::vector<Measurement>& ms) {
  // group -> task -> value -> best measurement
  std::map<GroupKey, std::map<std::int64_t, std::map<std::string, const Measurement*>>> best;
  for (const auto& m : ms) {
    if (!m.params.is_object() || !(m.time_ms > 0)) continue;
    for (const auto& [param, value] : m.params.items()) {
      auto& slot = best[{m.op, m.variant, param, m.device}][m.task_id][value.dump()];
      if (!slot || m.time_ms < slot->time_ms) slot = &m;
    }
  }
  std::map<GroupKey, std::vector<TaskComparison>> out;
  for (const auto& [group, tasks] : best) {
    for (const auto& [task, values] : tasks) {
      if (values.size() < 2) continue;  // nothing to compare the value with
      std::vector<std::pair<std::string, const Measurement*>> sorted(values.begin(), values.end());
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second->time_ms != b.second->time_ms ? a.second->time_ms < b.second->time_ms : a.first < b.first;
      });
      out[group].push_back({task, sorted[0].first, sorted[0].second, sorted[1].second});
    }
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void widen(std::map<std::string, std::pair<long long, long long>>& dims, const std::string& name, long long lo, long long hi) {
  auto [it, fresh] = dims.try_emplace(name, lo, hi);
  if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
}

}  // namespace

std::string ParamEffect::key() const { return key_text({op, variant, param, device}); }

std::vector<ParamTally> tally_params(const std::vector<Measurement>& ms) {
  std::vector<ParamTally> out;
  for (const auto& [group, comparisons] : compare(ms)) {
    ParamTally t;
    t.key = key_text(group);
    t.compared = static_cast<int>(comparisons.size());
    for (const auto& c : comparisons) ++t.wins[c.winner];
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<ParamEffect> find_param_effects(const std::vector<Measurement>& ms, const DistillOptions& o) {
  std::vector<ParamEffect> effects;
  for (const auto& [group, comparisons] : compare(ms)) {
    std::map<std::string, int> wins;
    for (const auto& c : comparisons) ++wins[c.winner];
    auto top = std::max_element(wins.begin(), wins.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const int compared = static_cast<int>(comparisons.size());
    if (top->second < o.min_support || top->second < o.min_agreement * compared) continue;

    ParamEffect e;
    e.op = group.op;
    e.variant = group.variant;
    e.param = group.param;
    e.device = group.device;
    e.value = nlohmann::json::parse(top->first);
    e.support = top->second;
    e.compared = compared;
    std::vector<double> speedups;
    for (const auto& c : comparisons) {
      if (c.winner != top->first) continue;
      speedups.push_back(c.runner_up->time_ms / c.best->time_ms);
      e.evidence.push_back(c.best->result_id);
      e.evidence.push_back(c.runner_up->result_id);
      e.tasks.push_back(c.task_id);
      e.arch = c.best->arch;
      e.timer = c.best->timer;
      // The range of shapes the effect held over: each bucket's range, each static dim's values.
      for (const auto& [dim, v] : c.best->shape.items()) {
        if (!v.is_number_integer()) continue;
        const auto& buckets = c.best->buckets;
        const bool dynamic = buckets.is_object() && buckets.contains(dim) && buckets[dim].is_array() &&
                             buckets[dim].size() == 2;
        if (dynamic)
          widen(e.dims, dim, buckets[dim][0].get<long long>(), buckets[dim][1].get<long long>());
        else
          widen(e.dims, dim, v.get<long long>(), v.get<long long>());
      }
    }
    e.median_speedup = median(speedups);
    if (e.median_speedup < o.min_speedup) continue;
    std::sort(e.evidence.begin(), e.evidence.end());
    e.evidence.erase(std::unique(e.evidence.begin(), e.evidence.end()), e.evidence.end());
    effects.push_back(std::move(e));
  }
  std::stable_sort(effects.begin(), effects.end(), [](const ParamEffect& a, const ParamEffect& b) {
    return a.support != b.support ? a.support > b.support : a.median_speedup > b.median_speedup;
  });
  return effects;
}

}  // namespace hone
