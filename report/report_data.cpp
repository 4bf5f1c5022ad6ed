#include "report/report_data.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/op_spec.hpp"
#include "core/paths.hpp"
#include "knowledge_db/lesson.hpp"
#include "serving/task_results.hpp"

namespace hone {

namespace {

std::string candidate_label(const CandidateRecord& c) {
  std::string s = c.variant.empty() ? c.origin : c.variant;
  std::string params;
  if (c.params.is_object())
    for (const auto& [k, v] : c.params.items()) params += (params.empty() ? "" : ",") + k + "=" + v.dump();
  return params.empty() ? s : s + " " + params;
}

// The floor from `o` when the user gave the GPU's limits, else from the limits the job recorded
// for the device when it measured it.
Roofline roofline(const TaskRecord& task, const ReportOptions& o, const std::string& timer,
                  const std::optional<nlohmann::json>& device_limits) {
  Roofline r;
  try {
    const OpSpec op = load_op(templates_root(), task.op);
    Bindings shape;
    for (const auto& [k, v] : task.shape.items()) shape[k] = v.get<std::int64_t>();
    r.bytes = static_cast<double>(op.bytes.eval(shape));
    r.flops = static_cast<double>(op.flops.eval(shape));
    r.known = true;
  } catch (const std::exception& e) {
    r.note = std::string("the op's bytes and flops are not known here: ") + e.what();
    return r;
  }
  double bandwidth = o.bandwidth_gbs, peak = o.peak_gflops;
  if (bandwidth <= 0 && peak <= 0 && device_limits) {
    // The memory's peak, not the measured copy rate: a floor no kernel can pass.
    bandwidth = device_limits->value("peak_bandwidth_gbs", 0.0);
    if (bandwidth <= 0) bandwidth = device_limits->value("copy_bandwidth_gbs", 0.0);
    peak = device_limits->value("peak_gflops", 0.0);
    if (bandwidth > 0 || peak > 0)
      r.note = fmt::format("the floor: the device's memory peak of {:.0f} GB/s (copy measured at {:.0f} GB/s) and arithmetic bound "
                           "of {:.0f} GFLOP/s, as the job that opened it recorded them",
                           bandwidth, device_limits->value("copy_bandwidth_gbs", 0.0), peak);
  }
  if (timer != "gpu") {
    r.note = "no roofline floor: these are CPU times of the emulated kernel, and a GPU's floor says nothing about them";
  } else if (bandwidth <= 0 && peak <= 0) {
    r.note = "no roofline floor: give the GPU's bandwidth (--bandwidth-gbs) and peak (--peak-gflops)";
  } else {
    if (bandwidth > 0) r.floor_ms = std::max(r.floor_ms, r.bytes / (bandwidth * 1e9) * 1e3);
    if (peak > 0) r.floor_ms = std::max(r.floor_ms, r.flops / (peak * 1e9) * 1e3);
  }
  return r;
}

// The lessons the task's LLM prompts carried, then those whose op and arch tags match it.
std::vector<ReportLesson> lessons_for(const std::vector<LessonRecord>& lessons, const TaskRecord& task,
                                      const std::set<std::int64_t>& result_ids, const std::map<std::int64_t, int>& prompts) {
  std::vector<ReportLesson> out;
  for (const auto& l : lessons) {
    bool op = false, arch_ok = true;
    for (const auto& t : l.tags) {
      op |= tag_has_prefix(t, "op/" + task.op);
      if (tag_has_prefix(t, "arch")) arch_ok = arch_ok && tag_has_prefix(t, "arch/" + task.arch);
    }
    const auto used = prompts.find(l.id);
    ReportLesson r{l, false, used == prompts.end() ? 0 : used->second};
    if (r.prompts == 0 && (!op || !arch_ok)) continue;
    for (auto id : l.evidence) r.from_this_task |= result_ids.count(id) > 0;
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.prompts != b.prompts) return a.prompts > b.prompts;
    return a.from_this_task != b.from_this_task ? a.from_this_task : a.lesson.confidence > b.lesson.confidence;
  });
  return out;
}

}  // namespace

const std::vector<std::string>& report_stage_order() {
  static const std::vector<std::string> order = {"pass", "static", "load", "reference", "hidden", "consistency", "timing", "worker"};
  return order;
}

ReportData gather_report(const KnowledgeDb& db, const ReportOptions& options) {
  ReportData data;
  data.db_file = db.file().string();
  data.options = options;
  const auto lessons = db.lessons();
  data.lessons_total = lessons.size();
  for (const auto& task : db.tasks()) {
    std::set<std::int64_t> result_ids;
    for (const auto& r : db.results_for_task(task.id)) result_ids.insert(r.id);
    std::map<std::int64_t, int> prompts;  // lesson -> the task's LLM prompts that carried it
    for (const auto& a : db.llm_attempts(task.id))
      for (auto id : a.lessons_used) ++prompts[id];
    for (const auto& device : task_devices(db, task.id)) {
      TaskReport t;
      t.label = task_label(task);
      t.arch = task.arch;
      t.device = device;
      for (const auto& l : task.layers) t.layers.push_back(l.get<std::string>());
      double best = 0;
      for (const auto& ev : task_evaluations(db, task.id, device)) {
        ReportEvaluation e;
        e.number = static_cast<int>(t.evaluations.size()) + 1;
        e.label = candidate_label(ev.candidate);
        e.pass = ev.result.verdict == "pass";
        e.stage = ev.result.stage;
        e.reason = ev.result.reason;
        e.time_ms = ev.result.time_ms;
        if (e.pass && e.time_ms > 0 && (best == 0 || e.time_ms < best)) best = e.time_ms;
        e.best_ms = best;
        t.timer = ev.result.timer.empty() ? t.timer : ev.result.timer;
        ++t.outcomes[e.pass ? "pass" : e.stage];
        t.evaluations.push_back(e);
      }
      if (auto w = db.winner(task.id, device)) {
        t.timed_in_turns = w->timed_in_turns();
        t.winner_ms = w->shown_ms();
        t.baseline_ms = w->shown_baseline_ms();
        if (auto c = db.candidate(w->candidate_id)) {
          t.winner_label = candidate_label(*c);
          if (c->origin == "reference" || c->origin.rfind("vendor:", 0) == 0) t.baseline_entry = c->origin;
        }
      }
      if (t.timer.empty()) t.timer = device.rfind("emu:", 0) == 0 ? "cpu" : "gpu";
      t.roofline = roofline(task, options, t.timer, db.device_limits(device));
      t.lessons = lessons_for(lessons, task, result_ids, prompts);
      data.tasks.push_back(std::move(t));
    }
  }
  return data;
}

}  // namespace hone
