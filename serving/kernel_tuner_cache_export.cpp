#include "serving/kernel_tuner_cache_export.hpp"

#include <map>
#include <set>

#include "core/input_error.hpp"
#include "serving/staged_directory.hpp"
#include "serving/task_results.hpp"

namespace hone {

namespace {

using nlohmann::json;

// One variant's evaluations of a task on a device, as a cache file.
json cache_file(const KnowledgeDb& db, const TaskRecord& task, const std::string& device, const std::string& variant,
                const std::vector<const TaskEvaluation*>& evaluations) {
  // The parameters in the order of the candidates' records (sorted by name), the values seen.
  std::vector<std::string> keys;
  for (const auto& [k, v] : evaluations.front()->candidate.params.items()) keys.push_back(k);
  std::map<std::string, std::set<long long>> values;
  json cache = json::object();
  for (const TaskEvaluation* ev : evaluations) {
    const ResultRecord& r = ev->result;
    std::string key;
    json entry = json::object();
    for (const auto& k : keys) {
      const long long v = ev->candidate.params.at(k).get<long long>();
      values[k].insert(v);
      key += (key.empty() ? "" : ",") + std::to_string(v);
      entry[k] = v;
    }
    if (r.verdict == "pass" && r.time_ms > 0) entry["time"] = r.time_ms;
    else entry["time"] = kernel_tuner_failure(r);
    if (auto c = db.compile(ev->candidate.id, task.arch)) entry["compile_time"] = c->compile_ms;
    // What checking and timing it took, the cost a replayed search is charged.
    if (r.detail.contains("evaluation_seconds")) entry["benchmark_time"] = r.detail["evaluation_seconds"].get<double>() * 1e3;
    entry["timer"] = r.timer;
    cache[key] = entry;  // a configuration evaluated again keeps its latest result
  }
  json tune_params = json::object();
  for (const auto& k : keys) tune_params[k] = json(std::vector<long long>(values[k].begin(), values[k].end()));
  return {{"device_name", device},
          {"kernel_name", variant},
          {"problem_size", task.shape},
          {"tune_params_keys", keys},
          {"tune_params", tune_params},
          {"objective", "time"},
          {"cache", cache}};
}

}  // namespace

std::string kernel_tuner_failure(const ResultRecord& r) {
  const std::string invalidity = t4_invalidity(r);
  if (invalidity == "compile") return "CompilationFailedConfig";
  if (invalidity == "constraints") return "InvalidConfig";
  return "RuntimeFailedConfig";  // a wrong result, a fault, a hang: it ran and failed
}

FormatExportSummary export_kernel_tuner_cache(const KnowledgeDb& db, const std::filesystem::path& out_dir) {
  StagedDirectory out(out_dir, [](const auto& d) { return is_export_of(d, "kernel-tuner-cache"); },
                      "exists and is not an earlier `hone export --format kernel-tuner-cache`; refusing to replace it");
  FormatExportSummary summary;
  for (const auto& task : db.tasks()) {
    for (const auto& device : task_devices(db, task.id)) {
      const std::vector<TaskEvaluation> evaluations = task_evaluations(db, task.id, device);
      std::map<std::string, std::vector<const TaskEvaluation*>> by_variant;
      for (const auto& ev : evaluations)
        if (ev.candidate.origin == "template" && ev.candidate.params.is_object()) by_variant[ev.candidate.variant].push_back(&ev);
      for (const auto& [variant, evs] : by_variant) {
        const json file = cache_file(db, task, device, variant, evs);
        out.write(task_file_stem(task) + "_" + file_name_safe(device) + "_" + file_name_safe(variant) + ".json", file.dump(1) + "\n");
        ++summary.files;
        summary.records += file["cache"].size();
      }
    }
  }
  if (summary.files == 0) throw input_error(db.file().string(), "holds no template evaluations to export (run hone tune first)");
  out.write(kExportMarker, "kernel-tuner-cache\n");
  out.commit();
  return summary;
}

}  // namespace hone
