#include "tuner/task_tuner.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "tuner/baseline.hpp"
#include "tuner/kernel_builds.hpp"
#include "tuner/db_records.hpp"
#include "validator/hang_limit.hpp"
#include "validator/candidate_validation.hpp"
#include "validator/source_policy.hpp"
#include "validator/static_stage.hpp"

namespace hone {

nlohmann::json TaskOutcome::to_json() const {
  return {{"space", space},         {"tried", tried},          {"passed", passed},
          {"strategy", strategy},   {"baseline_ms", baseline_ms}, {"winner", winner_label ? *winner_label : ""},
          {"winner_ms", winner_ms}, {"static_only", static_only}, {"error", error},
          {"baseline", baseline},   {"baseline_entry", baseline_entry}, {"best_candidate", best_candidate}};
}

void TaskOutcome::restore(const nlohmann::json& s) {
  space = s.value("space", 0u);
  tried = s.value("tried", 0u);
  passed = s.value("passed", 0u);
  reused = tried;
  strategy = s.value("strategy", "");
  baseline_ms = s.value("baseline_ms", 0.0);
  if (!s.value("winner", "").empty()) winner_label = s.value("winner", "");
  winner_ms = s.value("winner_ms", 0.0);
  static_only = s.value("static_only", false);
  error = s.value("error", "");
  baseline = s.value("baseline", "");
  baseline_entry = s.value("baseline_entry", false);
  best_candidate = s.value("best_candidate", "");
  from_earlier_run = true;
}

namespace {

struct Pending {
  Candidate candidate;
  std::int64_t candidate_id = 0;
  std::optional<ResultRecord> previous;  // from an earlier run: resume reuses it
  std::optional<Verdict> refused;        // untrusted source outside the allow-list: never compiled
  KernelBuild build;
};

// A baseline as the task knows it: built, and timed alone at the start.
struct TimedBaseline {
  Pending kernel;
  std::string origin;
  std::int64_t result_id = 0;
  double ms = 0;
};

class TaskTuner {
 public:
  TaskTuner(const Task& task, const TaskContext& ctx) : t_(task), ctx_(ctx), op_(*ctx.op), db_(*ctx.db) { out_.task = task; }

  TaskOutcome run(std::vector<std::unique_ptr<Proposer>>& proposers) {
    out_.static_only = ctx_.device.kind == "none";
    if (!prepare_baselines()) return out_;
    for (auto& p : proposers) {
      if (!run_proposer(*p)) return out_;
    }
    finish();
    return out_;
  }

 private:
  void note(const std::string& line) {
    if (ctx_.progress) ctx_.progress->note(line);
  }
  bool stopped() const { return ctx_.stop && ctx_.stop->load(); }

  // The baselines must build and, where kernels run, be timed; the reference's time sets the
  // limit after which a candidate's launch is a hang.
  bool prepare_baselines() {
    std::vector<std::string> left_out;
    std::vector<Baseline> baselines = task_baselines(op_, ctx_.device, &left_out);
    for (const std::string& why : left_out) note("  " + why);
    for (Baseline& b : baselines) {
      TimedBaseline t;
      t.origin = b.origin;
      t.kernel.candidate = std::move(b.candidate);
      CandidateRecord rec = candidate_record(t.kernel.candidate);
      t.kernel.candidate_id = db_.upsert_candidate(rec);
      std::vector<BuildJob> jobs{{&t.kernel.candidate, t.kernel.candidate_id, {}}};
      build_kernels(op_, jobs, ctx_.arch, ctx_.device.kind, ctx_.compile_threads, db_);
      t.kernel.build = std::move(jobs.front().build);
      if (t.origin == "reference") ref_ = t.kernel;  // what every request checks against
      Verdict v = static_verdict(op_, t.kernel.candidate, t.kernel.build, t_.shape, baseline_limits());
      if (v.pass && ctx_.worker) {
        v = ctx_.worker->evaluate(request(t.kernel, false));
        ResultRecord result = result_record(ctx_.task_id, t.kernel.candidate_id, ctx_.device.id(), v);
        t.result_id = db_.add_result(result);
      }
      if (!v.pass) {
        if (t.origin == "reference") {
          out_.error = "the reference kernel fails: " + v.reason;
          note("  " + out_.error);
          return false;
        }
        note("  baseline " + t.origin + " fails, left out: " + v.reason);
        continue;
      }
      if (ctx_.worker) {
        t.ms = v.timing.median_ms;
        note(fmt::format("  {} {:.4f} ms ({})", t.origin, t.ms, v.timing.timer));
        if (out_.baseline_ms == 0 || t.ms < out_.baseline_ms) {
          out_.baseline_ms = t.ms;
          out_.baseline = t.origin;
        }
      }
      baselines_.push_back(std::move(t));
    }
    limit_ = ctx_.timeout_s > 0 ? launch_limit_given(ctx_.timeout_s) : launch_limit_from_reference(baselines_.front().ms);
    return true;
  }

  EvaluationRequest request(const Pending& p, bool check) const {
    EvaluationRequest r = evaluation_request(op_, t_.shape, t_.buckets, t_.scalars, ref_.candidate, ref_.build.image,
                                             p.candidate, p.build.image, ctx_.check_seeds);
    r.check = check;
    r.launch_limit_s = limit_.seconds;
    r.launch_limit_basis = limit_.basis;
    return r;
  }

  // Returns false when the user interrupted.
  bool run_proposer(Proposer& proposer) {
    const std::size_t batch_size = build_threads(ctx_.compile_threads);
    std::size_t used = 0;
    while (used < proposer.budget()) {
      if (stopped()) return interrupted();
      std::vector<Pending> batch;
      for (auto& c : proposer.propose(std::min(batch_size, proposer.budget() - used))) {
        Pending p;
        p.candidate = std::move(c);
        CandidateRecord rec = candidate_record(p.candidate);
        p.candidate_id = db_.upsert_candidate(rec);
        p.previous = db_.latest_result(ctx_.task_id, p.candidate_id, ctx_.device.id());
        batch.push_back(std::move(p));
      }
      if (batch.empty()) break;
      used += batch.size();

      // Untrusted source (llm, user) keeps to the allow-list before anything compiles it.
      std::vector<BuildJob> jobs;
      for (auto& p : batch) {
        if (p.previous) continue;
        if (Verdict policy = source_policy_verdict(p.candidate, ctx_.device.kind); !policy.pass) p.refused = policy;
        else jobs.push_back({&p.candidate, p.candidate_id, {}});
      }
      build_kernels(op_, jobs, ctx_.arch, ctx_.device.kind, ctx_.compile_threads, db_);
      for (std::size_t i = 0, j = 0; i < batch.size(); ++i)
        if (!batch[i].previous && !batch[i].refused) batch[i].build = std::move(jobs[j++].build);

      for (auto& p : batch) {
        if (stopped()) return interrupted();
        ResultRecord result = evaluate(p);
        proposer.observe(p.candidate, result);
        account(p, result);
      }
    }
    return true;
  }

  ResultRecord evaluate(const Pending& p) {
    if (p.previous) return *p.previous;
    Verdict v = p.refused ? *p.refused : static_verdict(op_, p.candidate, p.build, t_.shape);
    if (v.pass && ctx_.worker) v = ctx_.worker->evaluate(request(p, true));
    ResultRecord r = result_record(ctx_.task_id, p.candidate_id, ctx_.device.id(), v);
    db_.add_result(r);
    return r;
  }

  void account(const Pending& p, const ResultRecord& r) {
    ++out_.tried;
    if (p.previous) ++out_.reused;
    if (r.verdict == "pass") {
      ++out_.passed;
      if (r.time_ms > 0 && (!best_result_ || r.time_ms < best_ms_)) {
        best_result_ = r.id;
        best_ms_ = r.time_ms;
        best_candidate_ = p.candidate_id;
        best_label_ = p.candidate.label();
      }
    }
    if (ctx_.progress) ctx_.progress->candidate_done(p.candidate.label(), r, p.previous.has_value());
  }

  bool interrupted() {
    out_.interrupted = true;
    return false;
  }

  void finish() {
    if (out_.static_only) {
      if (!out_.passed) out_.error = out_.tried ? "no candidate passed the static checks" : "no valid configuration";
      return;
    }
    if (!best_result_) {
      out_.error = out_.tried ? "no candidate passed" : "no valid configuration at this shape";
      return;
    }
    db_.offer_winner({ctx_.task_id, ctx_.device.id(), best_candidate_, *best_result_, best_ms_, out_.baseline_ms, ""});
    // The database keeps the best of every run; report what it holds.
    auto w = db_.winner(ctx_.task_id, ctx_.device.id());
    out_.winner_ms = w->shown_ms();
    auto record = db_.candidate(w->candidate_id);
    out_.winner_label = w->candidate_id == best_candidate_ ? best_label_ : record ? candidate_record_label(*record) : "?";
    if (record && is_baseline_origin(record->origin)) {
      // An earlier run's candidates lost to the baseline in turns, and this run's best is no
      // faster than they were.
      out_.baseline_entry = true;
      out_.baseline = record->origin;
      out_.baseline_ms = w->shown_baseline_ms();
      out_.best_candidate = best_label_ + " (no faster than the earlier run's)";
      return;
    }
    if (record) compete_with_baselines(*w, *record);
  }

  // The winner against each baseline, timed in turns in this session: the speedup shown is a
  // ratio of two medians taken under the same conditions, and a winner that is not faster than
  // every baseline gives the entry to the fastest of them.
  void compete_with_baselines(const WinnerRecord& w, const CandidateRecord& record) {
    Pending winner;
    winner.candidate = candidate_from_record(record);
    winner.candidate_id = w.candidate_id;
    std::vector<BuildJob> jobs{{&winner.candidate, winner.candidate_id, {}}};
    build_kernels(op_, jobs, ctx_.arch, ctx_.device.kind, ctx_.compile_threads, db_);
    winner.build = std::move(jobs.front().build);
    if (!winner.build.ok()) return;
    const TimedBaseline* beaten_by = nullptr;  // the baseline with the best ratio over the winner, when it is not beaten
    double best_ratio = 0, winner_ms = 0, baseline_ms = 0;
    std::string lost;
    for (const TimedBaseline& b : baselines_) {
      EvaluationRequest r = request(winner, false);
      r.time = false;
      r.time_against_baseline = true;
      r.baseline = KernelUnderTest{b.kernel.build.image, b.kernel.candidate.launch};
      Verdict v = ctx_.worker->evaluate(r);
      ResultRecord result = result_record(ctx_.task_id, w.candidate_id, ctx_.device.id(), v);
      result.detail[ResultRecord::kRetimingKey] = true;
      result.detail["against"] = b.origin;
      db_.add_result(result);
      if (!v.pass || !v.detail.contains("baseline")) {
        // A winner that fails its timing in turns (its timed outputs wrong, a crash) is no entry:
        // the fastest baseline by its own time is.
        lost = fmt::format("failed when timed in turns against the {}: {}", b.origin, v.reason);
        beaten_by = &*std::min_element(baselines_.begin(), baselines_.end(),
                                       [](const TimedBaseline& x, const TimedBaseline& y) { return x.ms < y.ms; });
        baseline_ms = beaten_by->ms;
        break;
      }
      const double w_ms = v.timing.median_ms, b_ms = v.detail["baseline"]["median_ms"].get<double>();
      const double ratio = b_ms / w_ms;  // the winner's speedup over this baseline
      note(fmt::format("  winner {:.4f} ms against the {} {:.4f} ms, timed in turns: {:.2f}x", w_ms, b.origin, b_ms, ratio));
      if (best_ratio == 0 || ratio < best_ratio) {
        best_ratio = ratio;
        winner_ms = w_ms;
        baseline_ms = b_ms;
        out_.baseline = b.origin;
        beaten_by = ratio <= 1 ? &b : nullptr;
        if (ratio <= 1) lost = fmt::format("{:.2f}x of the {} in turns", ratio, b.origin);
      }
    }
    if (!beaten_by) {
      out_.winner_ms = winner_ms;
      out_.baseline_ms = baseline_ms;
      db_.retime_winner(ctx_.task_id, ctx_.device.id(), w.candidate_id, winner_ms, baseline_ms);
      return;
    }
    // No candidate beats this baseline: it is the entry, with its own result's time and its time
    // in turns (the figures shown).
    WinnerRecord entry{ctx_.task_id, ctx_.device.id(), beaten_by->kernel.candidate_id, beaten_by->result_id, beaten_by->ms,
                       beaten_by->ms, ""};
    entry.retimed_ms = entry.retimed_baseline_ms = baseline_ms;
    db_.set_winner(entry);
    out_.best_candidate = *out_.winner_label + ": " + lost;
    out_.winner_label = beaten_by->kernel.candidate.label();
    out_.winner_ms = out_.baseline_ms = baseline_ms;
    out_.baseline = beaten_by->origin;
    out_.baseline_entry = true;
    note("  the " + beaten_by->origin + " is the entry: the best candidate, " + out_.best_candidate);
  }

  const Task& t_;
  const TaskContext& ctx_;
  const OpSpec& op_;
  KnowledgeDb& db_;
  TaskOutcome out_;
  Pending ref_;
  std::vector<TimedBaseline> baselines_;
  LaunchLimit limit_;
  std::optional<std::int64_t> best_result_;
  double best_ms_ = 0;
  std::int64_t best_candidate_ = 0;
  std::string best_label_;
};

}  // namespace

TaskOutcome tune_task(const Task& task, const TaskContext& context, std::vector<std::unique_ptr<Proposer>>& proposers) {
  return TaskTuner(task, context).run(proposers);
}

}  // namespace hone
