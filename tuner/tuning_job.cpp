#include "tuner/tuning_job.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <fmt/format.h>

#include <map>
#include <random>
#include <thread>

#include "core/candidate.hpp"
#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/device_select.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/template_proposer.hpp"
#include "tuner/template_strategy_space.hpp"
#include "validator/static_check.hpp"
#include "validator/worker.hpp"

namespace hone {

namespace {

std::vector<std::uint64_t> fresh_seeds(int n) {
  static std::random_device rd;
  std::vector<std::uint64_t> s;
  for (int i = 0; i < n; ++i) s.push_back((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  return s;
}

CandidateRecord to_record(const Candidate& c) {
  CandidateRecord r;
  r.key = c.key();
  r.op = c.op;
  r.origin = c.origin;
  r.variant = c.variant;
  r.params = c.params;
  r.entry = c.entry;
  r.source = c.source;
  r.launch = c.launch.to_json();
  return r;
}

CompileRecord to_record(std::int64_t candidate_id, const std::string& arch, const std::string& entry, const KernelBuild& b) {
  CompileRecord r;
  r.candidate_id = candidate_id;
  r.arch = arch;
  r.compiler = nvrtc_identity();
  r.ok = b.nvrtc.ok;
  r.log = b.nvrtc.log;
  r.compile_ms = b.nvrtc.compile_ms;
  r.ptx = b.nvrtc.ptx;
  r.cubin = b.nvrtc.cubin;
  if (auto it = b.nvrtc.usage.find(entry); it != b.nvrtc.usage.end()) {
    r.registers = it->second.registers;
    r.spill_stores = it->second.spill_stores;
    r.spill_loads = it->second.spill_loads;
    r.shared_bytes = it->second.shared_bytes;
    r.stack_bytes = it->second.stack_bytes;
  }
  return r;
}

ResultRecord to_record(std::int64_t task_id, std::int64_t candidate_id, const std::string& device, const Verdict& v) {
  ResultRecord r;
  r.task_id = task_id;
  r.candidate_id = candidate_id;
  r.device = device;
  r.verdict = v.pass ? "pass" : "fail";
  r.stage = v.stage;
  r.reason = v.reason;
  r.max_abs_err = v.max_abs_err;
  r.time_ms = v.timing.median_ms;
  r.time_min_ms = v.timing.min_ms;
  r.time_spread = v.timing.spread;
  r.runs = v.timing.runs;
  r.timer = v.timing.timer;
  r.detail = v.detail;
  if (!v.worst.buffer.empty())
    r.detail["worst"] = {{"buffer", v.worst.buffer}, {"index", v.worst.index}, {"got", v.worst.got}, {"expected", v.worst.expected}};
  return r;
}

// A candidate on its way through the pipeline.
struct Pending {
  std::size_t point = 0;
  Candidate candidate;
  std::int64_t candidate_id = 0;
  std::optional<ResultRecord> previous;  // a result from an earlier run: resume reuses it
  KernelBuild build;
};

class Job {
 public:
  Job(const TuneOptions& o, const ProgressSink& p) : opt_(o), progress_(p) {}

  TuneReport run() {
    TuneReport report;
    ModelShapes model = load_model_shapes(opt_.model_file);
    std::vector<Task> tasks = tasks_from_model(model, templates_root(), opt_.ops, opt_.arch);
    if (tasks.empty()) throw InputError("no tasks: " + opt_.model_file.string() + " has none of the ops asked for");
    DeviceChoice choice = choose_device(opt_.device);
    report.device = open_device(choice.kind, opt_.arch)->info();
    report.note = choice.note;
    device_ = report.device;
    // Opened only once the input is known good: bad input leaves no database behind.
    db_ = std::make_unique<KnowledgeDb>(opt_.db_file);
    if (!choice.note.empty()) say(choice.note);
    say(fmt::format("{} tasks from {} on {} ({}), {} candidates per task, database {}", tasks.size(), opt_.model_file.string(),
                    device_.id(), device_.arch, opt_.budget, opt_.db_file.string()));

    worker_ = std::make_unique<Worker>(WorkerOptions{choice.kind, opt_.arch, opt_.worker_timeout_s, {}});
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      say(fmt::format("[{}/{}] {}", i + 1, tasks.size(), tasks[i].label()));
      report.tasks.push_back(run_task(tasks[i]));
    }
    // Lessons from the results while they are fresh; failing to distil costs lessons, not the job.
    try {
      say("lessons: " + db_->distill_lessons().summary());
    } catch (const std::exception& e) {
      say(std::string("lessons: not distilled: ") + e.what());
    }
    return report;
  }

 private:
  void say(const std::string& line) {
    if (progress_) progress_(line);
  }

  const OpSpec& spec(const std::string& op) {
    auto it = specs_.find(op);
    if (it == specs_.end()) it = specs_.emplace(op, load_op(templates_root(), op)).first;
    return it->second;
  }

  // NVRTC for the real architecture (from the database's compile cache when this compile is
  // known) and the device build; both are pure functions of the source, so threads may run them
  // at once.
  KernelBuild build(const OpSpec& op, const Candidate& c, const std::optional<CompileRecord>& known) {
    std::optional<NvrtcResult> cached;
    if (known && known->compiler == nvrtc_identity()) {
      NvrtcResult r;
      r.ok = known->ok;
      r.log = known->log;
      r.ptx = known->ptx;
      r.cubin = known->cubin;
      r.compile_ms = known->compile_ms;
      if (known->ok)
        r.usage[c.entry] = {known->registers, known->spill_stores, known->spill_loads, known->shared_bytes, known->stack_bytes};
      cached = std::move(r);
    }
    return build_kernel(static_build_request(op, c, opt_.arch, device_.kind), cached);
  }

  void build_all(const OpSpec& op, std::vector<Pending>& batch) {
    std::vector<std::optional<CompileRecord>> known;
    for (auto& p : batch) known.push_back(db_->compile(p.candidate_id, opt_.arch));
    unsigned threads = opt_.compile_threads ? opt_.compile_threads : std::max(1u, std::thread::hardware_concurrency());
    boost::asio::thread_pool pool(std::min<std::size_t>(threads, batch.size()));
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (!batch[i].previous) boost::asio::post(pool, [&, i] { batch[i].build = build(op, batch[i].candidate, known[i]); });
    pool.join();
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (!batch[i].previous && !known[i]) db_->put_compile(to_record(batch[i].candidate_id, opt_.arch, batch[i].candidate.entry, batch[i].build));
  }

  EvaluationRequest request_for(const OpSpec& op, const Task& t, const KernelImage& ref_image, const Candidate& ref,
                                const KernelImage& image, const Candidate& c, bool check) {
    EvaluationRequest r;
    r.spec_dir = op.dir;
    r.shape = t.shape;
    r.scalars = t.scalars;
    r.reference = {ref_image, ref.launch};
    r.candidate = {image, c.launch};
    r.check = check;
    r.seeds = fresh_seeds(opt_.check_seeds);
    return r;
  }

  TaskOutcome run_task(const Task& t) {
    TaskOutcome out;
    out.task = t;
    const OpSpec& op = spec(t.op);
    TaskRecord tr;
    tr.op = t.op;
    tr.spec_hash = op.content_hash;
    tr.static_dims = t.static_dims;
    for (const auto& [k, b] : t.buckets) tr.buckets[k] = {b.lo, b.hi};
    tr.shape = t.shape;
    tr.scalars = t.scalars;
    tr.arch = t.arch;
    tr.layers = t.layers;
    tr.key = t.key();
    const std::int64_t task_id = db_->upsert_task(tr);

    // The reference: it must build, and its time in this session is the baseline.
    Pending ref;
    ref.candidate = reference_candidate(op);
    CandidateRecord ref_rec = to_record(ref.candidate);
    ref.candidate_id = db_->upsert_candidate(ref_rec);
    std::vector<Pending> one;
    one.push_back(std::move(ref));
    build_all(op, one);
    ref = std::move(one.front());
    StaticLimits reference_limits;  // the reference only has to run, however slowly
    reference_limits.max_spill_bytes = reference_limits.max_stack_bytes = 1 << 30;
    Verdict ref_static = static_verdict(op, ref.candidate, ref.build, t.shape, reference_limits);
    if (!ref_static.pass) {
      out.error = "the reference kernel fails: " + ref_static.reason;
      say("  " + out.error);
      return out;
    }
    Verdict ref_time = worker_->evaluate(request_for(op, t, ref.build.image, ref.candidate, ref.build.image, ref.candidate, false));
    ResultRecord ref_result = to_record(task_id, ref.candidate_id, device_.id(), ref_time);
    db_->add_result(ref_result);
    if (!ref_time.pass) {
      out.error = "the reference kernel fails: " + ref_time.reason;
      say("  " + out.error);
      return out;
    }
    out.baseline_ms = ref_time.timing.median_ms;
    say(fmt::format("  reference {:.4f} ms ({})", out.baseline_ms, ref_time.timing.timer));

    const auto space = template_space(op, t.shape);
    out.space = space.size();
    auto strategy = make_strategy(opt_.strategy, template_strategy_space(space), SearchLimits::of(opt_.budget), opt_.seed);
    out.strategy = strategy->name();
    std::vector<Observation> history;
    std::optional<std::int64_t> best_result;
    double best_ms = 0;
    std::string best_label;
    std::int64_t best_candidate = 0;
    const unsigned batch_size = std::max(1u, opt_.compile_threads ? opt_.compile_threads : std::thread::hardware_concurrency());

    while (out.tried < opt_.budget) {
      std::vector<Pending> batch;
      while (batch.size() < batch_size && out.tried + batch.size() < opt_.budget) {
        auto point = strategy->next(history);
        if (!point) break;
        Pending p;
        p.point = *point;
        p.candidate = render_template(op, *space[*point].variant, space[*point].config, t.shape);
        CandidateRecord rec = to_record(p.candidate);
        p.candidate_id = db_->upsert_candidate(rec);
        p.previous = db_->latest_result(task_id, p.candidate_id, device_.id());
        batch.push_back(std::move(p));
      }
      if (batch.empty()) break;
      build_all(op, batch);

      for (auto& p : batch) {
        ++out.tried;
        ResultRecord result;
        if (p.previous) {
          result = *p.previous;
          ++out.reused;
        } else {
          Verdict v = static_verdict(op, p.candidate, p.build, t.shape);
          if (v.pass) v = worker_->evaluate(request_for(op, t, ref.build.image, ref.candidate, p.build.image, p.candidate, true));
          result = to_record(task_id, p.candidate_id, device_.id(), v);
          db_->add_result(result);
        }
        const bool pass = result.verdict == "pass";
        history.push_back({p.point, pass ? std::optional<double>(result.time_ms) : std::nullopt});
        if (pass) {
          ++out.passed;
          if (!best_result || result.time_ms < best_ms) {
            best_result = result.id;
            best_ms = result.time_ms;
            best_label = p.candidate.label();
            best_candidate = p.candidate_id;
          }
        }
        say(fmt::format("  {:>3}/{} {:<40} {}", out.tried, std::min(opt_.budget, space.size()), p.candidate.label(),
                        pass ? fmt::format("pass {:.4f} ms{}", result.time_ms, p.previous ? " (from an earlier run)" : "")
                             : "fail [" + result.stage + "] " + first_line(result.reason)));
      }
    }

    if (best_result) {
      db_->offer_winner({task_id, device_.id(), best_candidate, *best_result, best_ms, out.baseline_ms, ""});
      // The database keeps the best of every run; report what it holds.
      auto w = db_->winner(task_id, device_.id());
      out.winner_ms = w->time_ms;
      out.winner_label = w->candidate_id == best_candidate ? best_label : candidate_label(w->candidate_id);
    } else {
      out.error = out.tried ? "no candidate passed" : "no valid configuration at this shape";
    }
    return out;
  }

  std::string candidate_label(std::int64_t id) {
    auto c = db_->candidate(id);
    if (!c) return "?";
    return c->origin == "template" ? c->variant + " " + config_to_string(c->params.get<Config>()) : c->origin + " " + c->entry;
  }

  static std::string first_line(const std::string& s) {
    auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl) + " ...";
  }

  const TuneOptions& opt_;
  const ProgressSink& progress_;
  std::unique_ptr<KnowledgeDb> db_;
  DeviceInfo device_;
  std::unique_ptr<Worker> worker_;
  std::map<std::string, OpSpec> specs_;
};

}  // namespace

bool TuneReport::all_won() const {
  for (const auto& t : tasks)
    if (!t.winner_label) return false;
  return true;
}

TuneReport run_tuning_job(const TuneOptions& options, const ProgressSink& progress) { return Job(options, progress).run(); }

}  // namespace hone
