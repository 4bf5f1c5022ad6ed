#include "serving/kernel_tuner_export.hpp"

#include "core/input_error.hpp"
#include "serving/staged_directory.hpp"
#include "serving/task_results.hpp"

namespace hone {

namespace {

using nlohmann::json;

bool contains(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

json t4_record(const KnowledgeDb& db, const TaskRecord& task, const TaskEvaluation& ev) {
  const ResultRecord& r = ev.result;
  // The configuration is the template's parameters; the variant is one more categorical
  // parameter, as Kernel Tuner would have it when one kernel source offers several.
  json config = ev.candidate.params.is_object() ? ev.candidate.params : json::object();
  config["variant"] = ev.candidate.variant;

  json times = json::object();
  if (auto c = db.compile(ev.candidate.id, task.arch)) times["compilation_time"] = c->compile_ms;
  // hone keeps each result's median, minimum and spread, not every run.
  if (r.time_ms > 0) times["runtimes"] = json::array({r.time_ms});

  json measurements = json::array();
  auto measure = [&](const std::string& name, const json& value, const std::string& unit) {
    measurements.push_back({{"name", name}, {"value", value}, {"unit", unit}});
  };
  if (r.time_ms > 0) {
    measure("time", r.time_ms, "ms");
    measure("time_min", r.time_min_ms, "ms");
    measure("time_spread", r.time_spread, "");
    measure("runs", r.runs, "");
  }
  // CPU times of the emulated kernel on emu: never to be read as GPU times.
  measure("timer", r.timer, "");
  measure("device", r.device, "");
  measure("max_abs_err", r.max_abs_err, "");
  measure("stage", r.stage, "");
  if (!r.reason.empty()) measure("reason", r.reason, "");
  if (r.detail.contains("resources"))
    for (const auto& [k, v] : r.detail["resources"].items()) measure(k, v, contains(k, "bytes") || contains(k, "spill") ? "B" : "");

  const std::string invalidity = t4_invalidity(r);
  return {{"timestamp", r.created_at},
          {"configuration", config},
          {"objectives", json::array({"time"})},
          {"times", times},
          {"invalidity", invalidity},
          // 1 when the output was checked and correct; 0 when it was wrong or never checked.
          {"correctness", invalidity == "correct" ? 1 : 0},
          {"measurements", measurements}};
}

}  // namespace

std::string t4_invalidity(const ResultRecord& r) {
  if (r.verdict == "pass") return "correct";
  if (contains(r.reason, "did not answer within") || contains(r.reason, "timed out")) return "timeout";
  if (r.stage == "static") return contains(r.reason, "does not compile") || contains(r.reason, "no entry named") ? "compile" : "constraints";
  if (r.stage == "reference" || r.stage == "hidden" || r.stage == "consistency") return "correctness";
  return "runtime";
}

FormatExportSummary export_kernel_tuner(const KnowledgeDb& db, const std::filesystem::path& out_dir) {
  StagedDirectory out(out_dir, [](const auto& d) { return is_export_of(d, "kernel-tuner"); },
                      "exists and is not an earlier `hone export --format kernel-tuner`; refusing to replace it");
  FormatExportSummary summary;
  for (const auto& task : db.tasks()) {
    for (const auto& device : task_devices(db, task.id)) {
      json results = json::array();
      for (const auto& ev : task_evaluations(db, task.id, device)) results.push_back(t4_record(db, task, ev));
      if (results.empty()) continue;
      out.write(task_file_stem(task) + "_" + file_name_safe(device) + ".json",
                json{{"schema_version", kT4SchemaVersion}, {"results", results}}.dump(1) + "\n");
      ++summary.files;
      summary.records += results.size();
    }
  }
  if (summary.files == 0) throw input_error(db.file().string(), "holds no results to export (run hone tune first)");
  out.write(kExportMarker, "kernel-tuner\n");
  out.commit();
  return summary;
}

}  // namespace hone
