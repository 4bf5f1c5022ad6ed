#include "tuner/task_tuner.hpp"

#include <fmt/format.h>

#include "tuner/kernel_builds.hpp"
#include "tuner/db_records.hpp"
#include "validator/candidate_validation.hpp"
#include "validator/source_policy.hpp"
#include "validator/static_stage.hpp"

namespace hone {

nlohmann::json TaskOutcome::to_json() const {
  return {{"space", space},         {"tried", tried},          {"passed", passed},
          {"strategy", strategy},   {"baseline_ms", baseline_ms}, {"winner", winner_label ? *winner_label : ""},
          {"winner_ms", winner_ms}, {"static_only", static_only}, {"error", error}};
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

class TaskTuner {
 public:
  TaskTuner(const Task& task, const TaskContext& ctx) : t_(task), ctx_(ctx), op_(*ctx.op), db_(*ctx.db) { out_.task = task; }

  TaskOutcome run(std::vector<std::unique_ptr<Proposer>>& proposers) {
    out_.static_only = ctx_.device.kind == "none";
    if (!prepare_reference()) return out_;
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

  // The reference must build and, where kernels run, be timed: its time is the baseline.
  bool prepare_reference() {
    ref_.candidate = reference_candidate(op_);
    CandidateRecord rec = candidate_record(ref_.candidate);
    ref_.candidate_id = db_.upsert_candidate(rec);
    std::vector<BuildJob> jobs{{&ref_.candidate, ref_.candidate_id, {}}};
    build_kernels(op_, jobs, ctx_.arch, ctx_.device.kind, ctx_.compile_threads, db_);
    ref_.build = std::move(jobs.front().build);
    StaticLimits limits;  // the reference only has to run, however slowly
    limits.max_spill_bytes = limits.max_stack_bytes = 1 << 30;
    Verdict v = static_verdict(op_, ref_.candidate, ref_.build, t_.shape, limits);
    if (v.pass && ctx_.worker) {
      v = ctx_.worker->evaluate(request(ref_, false));
      ResultRecord r = result_record(ctx_.task_id, ref_.candidate_id, ctx_.device.id(), v);
      db_.add_result(r);
    }
    if (!v.pass) {
      out_.error = "the reference kernel fails: " + v.reason;
      note("  " + out_.error);
      return false;
    }
    if (ctx_.worker) {
      out_.baseline_ms = v.timing.median_ms;
      note(fmt::format("  reference {:.4f} ms ({})", out_.baseline_ms, v.timing.timer));
    }
    return true;
  }

  EvaluationRequest request(const Pending& p, bool check) const {
    EvaluationRequest r = evaluation_request(op_, t_.shape, t_.buckets, t_.scalars, ref_.candidate, ref_.build.image,
                                             p.candidate, p.build.image, ctx_.check_seeds);
    r.check = check;
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
    out_.winner_ms = w->time_ms;
    auto record = db_.candidate(w->candidate_id);
    out_.winner_label = w->candidate_id == best_candidate_ ? best_label_ : record ? candidate_record_label(*record) : "?";
    if (record) retime_winner(*w, *record);
  }

  // The winner and the reference timed in turns in this session: the speedup reported is a ratio
  // of two medians taken under the same conditions, not of numbers from different runs.
  void retime_winner(const WinnerRecord& w, const CandidateRecord& record) {
    Pending winner;
    winner.candidate = candidate_from_record(record);
    winner.candidate_id = w.candidate_id;
    std::vector<BuildJob> jobs{{&winner.candidate, winner.candidate_id, {}}};
    build_kernels(op_, jobs, ctx_.arch, ctx_.device.kind, ctx_.compile_threads, db_);
    winner.build = std::move(jobs.front().build);
    if (!winner.build.ok()) return;
    EvaluationRequest r = request(winner, false);
    r.time = false;
    r.time_against_reference = true;
    Verdict v = ctx_.worker->evaluate(r);
    ResultRecord result = result_record(ctx_.task_id, w.candidate_id, ctx_.device.id(), v);
    result.detail[ResultRecord::kRetimingKey] = true;
    db_.add_result(result);
    if (!v.pass || !v.detail.contains("baseline")) {
      note("  re-timing the winner against the reference failed: " + v.reason);
      return;
    }
    out_.winner_ms = v.timing.median_ms;
    out_.baseline_ms = v.detail["baseline"]["median_ms"].get<double>();
    db_.retime_winner(ctx_.task_id, ctx_.device.id(), w.candidate_id, out_.winner_ms, out_.baseline_ms);
    note(fmt::format("  winner {:.4f} ms against the reference {:.4f} ms, timed in turns: {:.2f}x", out_.winner_ms,
                     out_.baseline_ms, out_.baseline_ms / out_.winner_ms));
  }

  const Task& t_;
  const TaskContext& ctx_;
  const OpSpec& op_;
  KnowledgeDb& db_;
  TaskOutcome out_;
  Pending ref_;
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
