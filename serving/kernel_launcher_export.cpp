#include "serving/kernel_launcher_export.hpp"

#include <algorithm>
#include <map>

#include "core/input_error.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "serving/staged_directory.hpp"
#include "serving/task_results.hpp"

namespace hone {

namespace {

using nlohmann::json;

struct Wisdom {
  std::vector<std::string> params;  // tunable_parameters, in the order of every record's config
  std::vector<json> records;
};

// The dynamic dims in the op's symbol order (the family's spec, else the bucket's own order).
std::vector<std::string> dynamic_order(const TaskRecord& task) {
  std::vector<std::string> order;
  try {
    const OpSpec op = load_op(templates_root(), task.op);
    for (const auto& s : op.symbols)
      if (task.buckets.contains(s)) order.push_back(s);
  } catch (const InputError&) {
    for (const auto& [k, v] : task.buckets.items()) order.push_back(k);
  }
  return order;
}

std::string wisdom_key(const TaskRecord& task, const std::string& variant) {
  std::string key = variant.empty() ? task.op : variant;
  for (const auto& [k, v] : task.static_dims.items()) key += "_" + k + v.dump();
  return file_name_safe(key);
}

}  // namespace

FormatExportSummary export_kernel_launcher(const KnowledgeDb& db, const std::filesystem::path& out_dir) {
  StagedDirectory out(out_dir, [](const auto& d) { return is_export_of(d, "kernel-launcher"); },
                      "exists and is not an earlier `hone export --format kernel-launcher`; refusing to replace it");
  std::map<std::string, Wisdom> files;
  for (const auto& task : db.tasks()) {
    const auto dyn = dynamic_order(task);
    if (dyn.size() > 3) continue;  // kernel_launcher's problem size has three dimensions
    json problem = json::array();
    for (const auto& d : dyn) problem.push_back(task.buckets[d].at(1));
    while (problem.size() < 3) problem.push_back(1);
    int cc = 0;
    try {
      cc = arch_number(task.arch);
    } catch (const std::exception&) {
    }
    for (const auto& device : task_devices(db, task.id)) {
      const auto colon = device.find(':');
      for (const auto& ev : task_evaluations(db, task.id, device)) {
        const ResultRecord& r = ev.result;
        if (r.verdict != "pass" || r.time_ms <= 0 || !ev.candidate.params.is_object()) continue;
        Wisdom& w = files[wisdom_key(task, ev.candidate.variant)];
        if (w.params.empty())
          for (const auto& [k, v] : ev.candidate.params.items()) w.params.push_back(k);
        json config = json::array();
        for (const auto& p : w.params) config.push_back(ev.candidate.params.value(p, json()));
        w.records.push_back({{"config", config},
                             {"problem_size", problem},
                             {"time", r.time_ms},
                             {"environment",
                              {{"date", r.created_at},
                               {"device_name", colon == std::string::npos ? device : device.substr(colon + 1)},
                               {"compute_capability", cc},
                               {"hone_device", device},
                               {"hone_timer", r.timer}}}});
      }
    }
  }
  FormatExportSummary summary;
  for (auto& [key, w] : files) {
    std::stable_sort(w.records.begin(), w.records.end(), [](const json& a, const json& b) { return a["time"] < b["time"]; });
    std::string text = json{{"version", kWisdomVersion}, {"objective", "time"}, {"tunable_parameters", w.params}, {"key", key}}.dump() + "\n";
    for (const auto& r : w.records) text += r.dump() + "\n";
    out.write(key + ".wisdom", text);
    ++summary.files;
    summary.records += w.records.size();
  }
  if (summary.files == 0) throw input_error(db.file().string(), "holds no passing timed results to export (run hone tune first)");
  out.write(kExportMarker, "kernel-launcher\n");
  out.commit();
  return summary;
}

}  // namespace hone
