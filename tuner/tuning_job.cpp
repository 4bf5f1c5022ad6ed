#include "tuner/tuning_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "core/sha256.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_select.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "tuner/proposer_factory.hpp"
#include "tuner/db_records.hpp"
#include "validator/device_rate.hpp"
#include "validator/evaluation_request.hpp"
#include "validator/evaluation_work.hpp"
#include "validator/job_estimate.hpp"
#include "validator/memory_need.hpp"
#include "validator/timing_plan.hpp"
#include "validator/worker.hpp"

namespace hone {

std::string tuning_plan(const TuneOptions& o, const std::string& spec_hash) {
  nlohmann::json j = {{"budget", o.budget},     {"strategy", o.strategy},       {"seed", o.seed},
                      {"plateau", o.plateau},   {"proposers", o.proposers},     {"check_seeds", o.check_seeds},
                      {"arch", o.arch},         {"spec", spec_hash}};
  if (o.task_seconds) j["task_seconds"] = *o.task_seconds;
  if (std::find(o.proposers.begin(), o.proposers.end(), "llm") != o.proposers.end())
    j["llm"] = {{"model", o.llm.model.empty() ? resolve_llm_endpoint(o.llm).model : o.llm.model},
                {"attempts", o.llm.attempts},
                {"sweep", o.llm.sweep}};
  return sha256_hex(j.dump()).substr(0, 32);
}

bool TuneReport::all_won() const {
  for (const auto& t : tasks)
    if (t.static_only ? t.passed == 0 : !t.winner_label) return false;
  return !interrupted;
}

TuneReport run_tuning_job(const TuneOptions& requested, JobProgress& progress) {
  TuneReport report;
  DeviceChoice choice = choose_device(requested.device);
  TuneOptions opt = requested;
  // Without --arch, a GPU gets code for its own architecture (the newest NVRTC target at or below
  // it); emu and none, which have none, check for sm_90. The device is opened here for its
  // description only: on a GPU the worker holds the context.
  report.device = open_device(choice.kind, opt.arch.empty() ? "sm_90" : opt.arch)->info();
  if (opt.arch.empty()) opt.arch = choice.kind == "cuda" ? compile_arch_for(report.device.arch, nvrtc_supported_archs()) : "sm_90";
  ModelShapes model = load_model_shapes(opt.model_file);
  std::vector<Task> all = tasks_from_model(model, templates_root(), opt.ops, opt.arch);
  if (all.empty()) throw InputError("no tasks: " + opt.model_file.string() + " has none of the ops asked for");
  report.model_tasks = all.size();
  report.not_tuned = model.not_tuned;
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (opt.shard.takes(i)) tasks.push_back(std::move(all[i]));
  for (const auto& p : opt.proposers) check_proposer(p, opt);
  check_strategy(opt.strategy);

  report.note = choice.note;
  // Opened only once the input is known good: bad input leaves no database behind.
  KnowledgeDb db(opt.db_file);
  // What the device measured as it opened (its copy rate) and its attributes promise: kept with
  // the results, for the report's roofline floor.
  if (report.device.timer == "gpu")
    db.put_device_limits(report.device.id(), {{"arch", report.device.arch},
                                              {"copy_bandwidth_gbs", report.device.copy_bandwidth_gbs},
                                              {"peak_bandwidth_gbs", report.device.peak_bandwidth_gbs},
                                              {"peak_gflops", report.device.peak_gflops},
                                              {"l2_bytes", report.device.l2_bytes}});
  if (!choice.note.empty()) progress.note(choice.note);
  progress.note(fmt::format("{} tasks{} from {} on {} ({}), {} candidates per task, database {}", tasks.size(),
                            opt.shard.count > 1 ? fmt::format(" (shard {}/{} of {})", opt.shard.index, opt.shard.count, all.size()) : "",
                            opt.model_file.string(), report.device.id(), report.device.arch, opt.budget,
                            opt.db_file.string()));
  if (!model.not_tuned.empty())
    progress.note(fmt::format("{} ops of the model are not tuned (no family in hone for them; listed at the end)",
                              model.not_tuned.size()));

  std::map<std::string, OpSpec> specs;
  auto spec_of = [&](const std::string& name) -> const OpSpec& {
    auto it = specs.find(name);
    if (it == specs.end()) it = specs.emplace(name, load_op(templates_root(), name)).first;
    return it->second;
  };

  // The expected time, before anything runs: every task not already done under this plan, each
  // with its candidates and the reference it is timed against.
  std::size_t per_task = 1;
  for (const auto& p : opt.proposers) per_task += p == "llm" ? opt.llm.attempts : opt.budget;
  const DeviceRate rate = device_rate(report.device);
  std::vector<TaskWork> work;
  std::vector<double> expected(tasks.size(), 0.0);  // each task's seconds in the estimate: the pace follows them
  std::size_t done_before = 0;
  // A task whose evaluations would not fit in this machine's memory is not run: the OOM killer
  // would end each candidate's worker after minutes of drawing, or pick another process.
  const std::uint64_t available = available_memory_bytes();
  std::vector<std::string> no_room(tasks.size());
  std::size_t without_room = 0, first_without_room = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const OpSpec& op = spec_of(tasks[i].op);
    TaskRecord record = task_record(tasks[i], op.content_hash);
    if (db.task_done(db.upsert_task(record), report.device.id(), tuning_plan(opt, op.content_hash))) {
      ++done_before;
      continue;
    }
    no_room[i] = memory_shortfall(evaluation_memory_bytes(op, tasks[i].shape, choice.kind), available, choice.kind);
    if (!no_room[i].empty()) {
      if (without_room++ == 0) first_without_room = i;
      continue;
    }
    TaskWork w{static_cast<double>(op.bytes.eval(tasks[i].shape)), static_cast<double>(op.flops.eval(tasks[i].shape)), per_task - 1,
               static_cast<double>(buffer_bytes_at(op, tasks[i].shape))};
    const int samples = samples_after_warm_up(report.device, launch_seconds(w, rate) * 1e3);
    const EvaluationWork checks = evaluation_work(op, tasks[i].shape, tasks[i].buckets, opt.check_seeds, samples);
    w.launches = checks.launches;
    w.draws = checks.draws;
    // The reference: timed alone first, then in turns with the winner, its outputs compared.
    w.baselines = 1;
    w.baseline_launches = 3.0 * (1 + samples) + 1;
    work.push_back(w);
    expected[i] = estimate_job({work.back()}, rate).seconds;
  }
  if (without_room)
    progress.note(fmt::format("{} tasks will not run on this machine, the first {}: {}", without_room,
                              tasks[first_without_room].label(), no_room[first_without_room]));
  JobPace pace;
  for (double s : expected) pace.expected_left += s;
  for (const auto& line : estimate_lines(estimate_job(work, rate), rate, report.device.id(),
                                         fmt::format("at most {} kernels (the candidates and the reference)", per_task),
                                         done_before ? fmt::format("{} tasks an earlier run finished under this plan are left out", done_before) : ""))
    progress.note(line);

  std::unique_ptr<Worker> worker;
  if (choice.kind != "none") worker = std::make_unique<Worker>(WorkerOptions{choice.kind, opt.arch, evaluation_timeout_s(opt.timeout_s), {}});
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (const std::string line = pace.line(); !line.empty()) progress.note(line);
    const auto task_start = std::chrono::steady_clock::now();
    const Task& t = tasks[i];
    const OpSpec& op = spec_of(t.op);
    TaskRecord tr = task_record(t, op.content_hash);
    const std::int64_t task_id = db.upsert_task(tr);
    const std::string plan = tuning_plan(opt, op.content_hash);

    ProposerSetup setup{&op, &t, &opt, &db, task_id, report.device, &progress};
    std::vector<std::unique_ptr<Proposer>> proposers;
    std::size_t planned = 0;
    for (const auto& name : opt.proposers) {
      proposers.push_back(make_proposer(name, setup));
      planned += proposers.back()->budget();
    }
    progress.task_started(i + 1, tasks.size(), t, planned);
    TaskOutcome outcome;
    if (auto done = db.task_done(task_id, report.device.id(), plan)) {
      outcome.task = t;
      outcome.restore(*done);
    } else if (!no_room[i].empty()) {
      // Not marked done: a run on a machine with the memory does it.
      outcome.task = t;
      outcome.error = "not run: " + no_room[i];
    } else {
      TaskContext ctx{&op, task_id, report.device, opt.arch, opt.compile_threads, opt.check_seeds, opt.timeout_s, &db,
                      worker.get(), &progress, opt.stop};
      outcome = tune_task(t, ctx, proposers);
      if (auto* search = dynamic_cast<TemplateSearch*>(proposers.front().get())) {
        outcome.space = search->space_size();
        outcome.strategy = search->strategy_name();
      }
      if (!outcome.interrupted) db.mark_task_done(task_id, report.device.id(), plan, outcome.to_json());
    }
    progress.task_finished(outcome);
    pace.elapsed += std::chrono::duration<double>(std::chrono::steady_clock::now() - task_start).count();
    pace.expected_done += expected[i];
    pace.expected_left -= expected[i];
    report.tasks.push_back(std::move(outcome));
    if (report.tasks.back().interrupted) {
      report.interrupted = true;
      return report;
    }
  }
  // Lessons from the results while they are fresh; failing to distil costs lessons, not the job.
  try {
    progress.note("lessons: " + db.distill_lessons().summary());
  } catch (const std::exception& e) {
    progress.note(std::string("lessons: not distilled: ") + e.what());
  }
  return report;
}

}  // namespace hone
