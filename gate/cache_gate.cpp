#include "gate/cache_gate.hpp"

#include <chrono>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "core/candidate.hpp"
#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "hone/kernel_cache/manifest.hpp"
#include "hone/kernel_cache/sha256.hpp"
#include "runtime/device_select.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "validator/candidate_validation.hpp"
#include "validator/device_rate.hpp"
#include "validator/evaluation_request.hpp"
#include "validator/evaluation_work.hpp"
#include "validator/job_estimate.hpp"
#include "validator/memory_need.hpp"
#include "validator/timing_plan.hpp"

namespace hone {

namespace {

namespace kc = kernel_cache;

struct LoadedCache {
  std::string dir;
  kc::Manifest manifest;
  std::map<std::pair<std::size_t, std::string>, std::string> files;  // (entry index, "source" | "ptx" | "cubin") -> verified bytes

  const std::string* file(const kc::CacheEntry& e, const std::string& kind) const {
    auto it = files.find({e.index, kind});
    return it == files.end() ? nullptr : &it->second;
  }
};

// The manifest and every file it names, checked; anything wrong is bad input (exit 2), never a
// gate failure: a corrupted cache says nothing about the kernels.
LoadedCache load_cache(const std::filesystem::path& dir) {
  LoadedCache c;
  c.dir = dir.string();
  try {
    c.manifest = kc::read_manifest(c.dir);
    for (const auto& e : c.manifest.entries) {
      for (const auto& [kind, path] : e.files) c.files[{e.index, kind}] = kc::read_verified(c.dir + "/" + path, e.sha256.at(kind));
    }
  } catch (const KernelCacheError& e) {
    throw InputError(e.what());
  }
  return c;
}

bool same_task(const kc::CacheEntry& a, const kc::CacheEntry& b) {
  if (a.op != b.op || a.static_dims != b.static_dims || a.arch != b.arch || a.buckets.size() != b.buckets.size()) return false;
  for (const auto& [k, v] : a.buckets) {
    auto it = b.buckets.find(k);
    if (it == b.buckets.end() || it->second.lo != v.lo || it->second.hi != v.hi) return false;
  }
  return true;
}

// The task an entry serves: its static dims, each dynamic dim at the bucket's upper bound (what
// it was tuned at), and the bucket itself for the hidden tests.
struct EntryTask {
  Bindings shape;
  ValidationOptions options;
};

EntryTask entry_task(const kc::CacheEntry& e, const std::string& device_kind, const GateOptions& o) {
  EntryTask t;
  for (const auto& [k, v] : e.static_dims) t.shape[k] = v;
  for (const auto& [k, b] : e.buckets) {
    t.shape[k] = b.hi;
    t.options.buckets[k] = Bucket{b.lo, b.hi};
  }
  t.options.arch = e.arch;
  t.options.device_kind = device_kind;
  t.options.scalars = e.scalars;
  t.options.timing = o.timing;
  t.options.timeout_s = o.timeout_s;
  if (e.origin == "reference") t.options.limits = baseline_limits();  // as the job held it
  return t;
}

Candidate entry_candidate(const LoadedCache& c, const kc::CacheEntry& e) {
  Candidate k;
  k.op = e.op;
  k.origin = "template";  // exported winners come from hone's templates: trusted source, as when they were tuned
  k.variant = e.variant;
  k.entry = e.entry;
  k.source = *c.file(e, "source");
  const std::string where = "entries[" + std::to_string(e.index) + "].launch";
  k.launch = parse_launch_rule(e.raw.at("launch"), c.dir + "/manifest.json", where);
  return k;
}

ResourceFigures figures(const nlohmann::json& r) {
  ResourceFigures f;
  if (!r.is_object()) return f;
  f.registers = r.value("registers", -1);
  f.spill_bytes = r.value("spill_stores", 0) + r.value("spill_loads", 0);
  return f;
}

class Gate {
 public:
  explicit Gate(const GateOptions& o) : opt_(o) {
    kind_ = o.device == "none" ? "none" : choose_device(o.device).kind;
    info_ = open_device(kind_, "sm_90")->info();  // for its description and rate: the workers hold their own
    // Recorded GPU times compare only with times from the same GPU.
    if (kind_ == "cuda") device_id_ = info_.id();
  }

  GateReport run(const std::function<void(const std::string&)>& progress) {
    const LoadedCache cache = load_cache(opt_.cache);
    std::unique_ptr<LoadedCache> baseline;
    if (!opt_.baseline.empty()) baseline = std::make_unique<LoadedCache>(load_cache(opt_.baseline));

    GateReport report;
    report.cache = cache.dir;
    report.baseline = baseline ? baseline->dir : "";
    report.device = kind_;
    report.max_regression_pct = opt_.max_regression_pct;
    report.shard = opt_.shard;
    report.cache_entries = cache.manifest.entries.size();
    std::vector<const kc::CacheEntry*> mine;
    for (std::size_t i = 0; i < cache.manifest.entries.size(); ++i)
      if (opt_.shard.takes(i)) mine.push_back(&cache.manifest.entries[i]);
    if (progress) {
      std::vector<std::size_t> indices;
      for (const auto* e : mine) indices.push_back(e->index);
      progress(checked_entries(opt_.shard, indices, report.cache_entries));
      for (const auto& line : estimate(cache, mine, baseline != nullptr)) progress(line);
    }
    for (const kc::CacheEntry* entry : mine) {
      const kc::CacheEntry& e = *entry;
      const auto start = std::chrono::steady_clock::now();
      GateEntryResult r = check_entry(cache, e, baseline.get());
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (progress) progress(fmt::format("{} {} ({}): {}", r.pass() ? "pass" : "FAIL", r.name, r.entry, r.pass() ? r.validation : r.failures.front()));
      report.entries.push_back(std::move(r));
    }
    return report;
  }

 private:
  // The entries' launches at their shapes, each validated once (and its baseline's kernel again),
  // the reference timed first for the hang limit; an entry that is the reference only runs.
  std::vector<std::string> estimate(const LoadedCache& cache, const std::vector<const kc::CacheEntry*>& entries, bool with_baseline) {
    const DeviceRate rate = device_rate(info_);
    std::vector<TaskWork> work;
    std::map<std::string, OpSpec> specs;
    for (const auto* e : entries) {
      if (e->vendor()) continue;
      auto it = specs.find(e->op);
      if (it == specs.end()) {
        try {
          it = specs.emplace(e->op, load_op(templates_root(), e->op)).first;
        } catch (const InputError&) {
          continue;  // the entry fails without launching anything
        }
      }
      const EntryTask t = entry_task(*e, kind_, opt_);
      if (!no_room(it->second, t.shape).empty()) continue;  // fails without launching anything
      const bool itself = is_the_reference(entry_candidate(cache, *e), it->second);
      TaskWork w{static_cast<double>(it->second.bytes.eval(t.shape)), static_cast<double>(it->second.flops.eval(t.shape)),
                 (itself ? 0u : 1u) + (with_baseline ? 1u : 0u), static_cast<double>(buffer_bytes_at(it->second, t.shape))};
      const int samples = samples_after_warm_up(info_, launch_seconds(w, rate) * 1e3);
      const EvaluationWork checks = evaluation_work(it->second, t.shape, t.options.buckets, t.options.seeds, samples);
      w.launches = checks.launches;
      w.draws = checks.draws;
      if (itself || opt_.timeout_s <= 0) {
        w.baselines = 1;
        w.baseline_launches = 1 + samples;
      }
      work.push_back(w);
    }
    return estimate_lines(estimate_job(work, rate), rate, info_.id(),
                          with_baseline ? "the entry's kernel and the baseline's" : "the entry's kernel");
  }

  // Why an evaluation at `shape` does not fit in this machine's memory ("" when it does).
  std::string no_room(const OpSpec& op, const Bindings& shape) const {
    return memory_shortfall(evaluation_memory_bytes(op, shape, kind_), available_memory_bytes(), kind_);
  }

  Worker* worker(const std::string& arch) {
    if (kind_ == "none") return nullptr;
    auto& w = workers_[arch];
    if (!w) w = std::make_unique<Worker>(WorkerOptions{kind_, arch, evaluation_timeout_s(opt_.timeout_s), {}});
    return w.get();
  }

  Verdict validate(const LoadedCache& c, const kc::CacheEntry& e, const OpSpec& op, KernelBuild* build = nullptr) {
    const EntryTask t = entry_task(e, kind_, opt_);
    return validate_candidate(op, entry_candidate(c, e), t.shape, t.options, worker(e.arch), build);
  }

  // What an engine loads is what was validated: the cache's PTX and CUBIN are the bytes its
  // source compiles to with this NVRTC and the recorded options. Where this NVRTC or the options
  // differ, that cannot be proven: a failure unless accepted.
  void prove_binaries(const LoadedCache& c, const kc::CacheEntry& e, const KernelBuild& rebuilt, GateEntryResult& r) {
    if (!rebuilt.nvrtc.ok) {
      r.binaries = "not proven: the source does not compile here";
      return;  // the validation says why
    }
    const std::string recorded = e.resources ? e.resources->compiler : c.manifest.compiler;
    std::vector<std::string> recorded_options;
    if (e.raw.contains("build") && e.raw["build"].contains("options")) recorded_options = e.raw["build"]["options"].get<std::vector<std::string>>();
    std::string unproven;
    const std::string* cached_ptx = c.file(e, "ptx");
    const std::string* cached_cubin = c.file(e, "cubin");
    const std::string cached_build = compiler_build_of(cached_ptx ? *cached_ptx : cached_cubin ? *cached_cubin : "");
    const std::string our_build = compiler_build_of(rebuilt.nvrtc.ptx);
    if (recorded != nvrtc_identity()) unproven = "it was compiled by " + (recorded.empty() ? "an unrecorded compiler" : recorded) + ", this is " + nvrtc_identity();
    else if (cached_build != our_build) unproven = "it was compiled by " + (cached_build.empty() ? "an unnamed build" : cached_build) + ", this NVRTC is " + our_build;
    else if (recorded_options != nvrtc_options(e.arch)) unproven = "its recorded options are not the ones this hone compiles with";
    if (!unproven.empty()) {
      r.binaries = "not proven: " + unproven;
      if (!opt_.accept_other_compiler)
        r.failures.push_back("binaries: cannot prove that the cache's PTX and CUBIN are what its source compiles to: " + unproven +
                             " (--accept-other-compiler accepts that)");
      return;
    }
    std::vector<std::string> differ;
    if (cached_ptx) {
      const std::string where = first_difference(rebuilt.nvrtc.ptx, *cached_ptx);
      if (!where.empty()) differ.push_back("the PTX (" + e.files.at("ptx") + ") differs " + where);
    }
    if (cached_cubin) {
      const std::string where = first_difference(rebuilt.nvrtc.cubin, *cached_cubin);
      if (!where.empty()) differ.push_back("the CUBIN (" + e.files.at("cubin") + ") differs " + where);
    }
    if (differ.empty()) {
      r.binaries = fmt::format("the {} what its source compiles to ({}, byte for byte)",
                               cached_ptx && cached_cubin ? "PTX and CUBIN are" : cached_cubin ? "CUBIN is" : "PTX is", recorded);
      return;
    }
    std::string all;
    for (const auto& d : differ) all += (all.empty() ? "" : "; ") + d;
    r.binaries = "not what the source compiles to";
    r.failures.push_back("binaries: " + all + " from what its source compiles to with " + recorded +
                         " and the recorded options: an engine would run a kernel other than the one validated");
  }

  GateEntryResult check_entry(const LoadedCache& cache, const kc::CacheEntry& e, const LoadedCache* baseline) {
    GateEntryResult r;
    r.index = e.index;
    r.name = e.label();
    r.entry = e.entry;
    r.op = e.op;
    r.arch = e.arch;
    if (e.vendor()) {
      r.validation = "the vendor library " + e.origin.substr(7) + " (no hone kernel beat it): nothing of hone's to check";
      return r;
    }
    OpSpec op;
    try {
      op = load_op(templates_root(), e.op);
    } catch (const InputError& err) {
      r.validation = "not validated";
      r.failures.push_back(std::string("the op family is not installed here, so nothing can check the kernel: ") + err.what());
      return r;
    }

    // An entry whose evaluation would not fit in this machine's memory fails rather than passing
    // unchecked or being killed for memory half-way: another runner (more memory, the GPU) can check it.
    if (const std::string why = no_room(op, entry_task(e, kind_, opt_).shape); !why.empty()) {
      r.validation = "not validated";
      r.failures.push_back("cannot be validated on this machine: " + why + "; a runner with more memory (or a GPU's) can check it");
      return r;
    }

    KernelBuild rebuilt;
    const Verdict v = validate(cache, e, op, &rebuilt);
    r.validation = !v.pass                             ? "rejected at the " + v.stage + " stage: " + v.reason
                   : kind_ == "none"                   ? "passed the static stage (device none)"
                   : v.detail.contains("reference_itself") ? "ran on " + kind_ + ": " + v.detail["reference_itself"].get<std::string>()
                                                       : "passed every stage on " + kind_;
    if (!v.pass) r.failures.push_back("wrong: " + r.validation);
    prove_binaries(cache, e, rebuilt, r);

    // Resources: this NVRTC's compile for the entry's architecture against the recorded one.
    const ResourceFigures now = figures(v.detail.value("resources", nlohmann::json()));
    ResourceFigures recorded;
    if (e.resources) recorded = {e.resources->registers, e.resources->spill_stores + e.resources->spill_loads};
    if (now.registers >= 0) {
      r.resources = fmt::format("{} registers, {} spill bytes", now.registers, now.spill_bytes);
      if (recorded.registers >= 0) r.resources += fmt::format(" (recorded: {}, {})", recorded.registers, recorded.spill_bytes);
      for (const auto& why : resource_regressions(recorded, now))
        r.failures.push_back("resources: " + why + " (recorded with " + (e.resources ? e.resources->compiler : "?") + ")");
    }

    if (!v.pass || v.timing.runs == 0) return r;
    r.timer = v.timing.timer;
    r.time_ms = v.timing.median_ms;
    r.recorded_ms = e.time_ms;
    const TimingSample now_t{v.timing.median_ms, v.timing.spread};
    TimingSample base_t;
    if (baseline) {
      const kc::CacheEntry* b = nullptr;
      for (const auto& be : baseline->manifest.entries)
        if (same_task(be, e)) b = &be;
      if (!b) {
        r.timing = "the baseline cache has no entry for this task: not compared";
        return r;
      }
      const Verdict bv = validate(*baseline, *b, op);
      if (!bv.pass || bv.timing.runs == 0) {
        r.timing = "the baseline's kernel did not pass here (" + bv.stage + ": " + bv.reason + "): not compared";
        return r;
      }
      base_t = {bv.timing.median_ms, bv.timing.spread};
      r.baseline_from = "re-timed from the baseline cache";
    } else if (r.timer == "gpu" && e.timer == "gpu" && e.device.id == device_id_) {
      base_t = {e.time_ms, 0};  // the recorded median; its spread was not recorded
      r.baseline_from = "recorded in the cache (" + e.device.id + ")";
    } else {
      r.timing = r.timer == "cpu" ? "CPU time of the emulated kernel: reported, not gated"
                                  : "the cache's time was measured on " + e.device.id + ": not comparable (give --baseline)";
      return r;
    }
    r.baseline_ms = base_t.median_ms;
    const RegressionCheck check = check_regression(now_t, base_t, opt_.max_regression_pct);
    if (r.timer != "gpu") {
      r.timing = "CPU times of the emulated kernels, reported, not gated: " + check.explanation;
    } else {
      r.timing = check.explanation;
      if (check.regressed) r.failures.push_back("slower: " + check.explanation);
    }
    return r;
  }

  GateOptions opt_;
  std::string kind_, device_id_;
  DeviceInfo info_;
  std::map<std::string, std::unique_ptr<Worker>> workers_;
};

}  // namespace

std::string first_difference(const std::string& want, const std::string& got) {
  const std::size_t n = std::min(want.size(), got.size());
  for (std::size_t i = 0; i < n; ++i)
    if (want[i] != got[i]) return fmt::format("at byte {} of {}", i, want.size());
  if (want.size() != got.size()) return fmt::format("in size: {} bytes, compiled {}", got.size(), want.size());
  return "";
}

std::vector<std::string> resource_regressions(const ResourceFigures& recorded, const ResourceFigures& now) {
  std::vector<std::string> out;
  if (recorded.registers >= 0 && now.registers > recorded.registers)
    out.push_back(fmt::format("{} registers per thread, recorded {}", now.registers, recorded.registers));
  if (now.spill_bytes > recorded.spill_bytes)
    out.push_back(fmt::format("{} bytes of register spills, recorded {}", now.spill_bytes, recorded.spill_bytes));
  return out;
}

std::string checked_entries(const Shard& shard, const std::vector<std::size_t>& indices, std::size_t total) {
  if (shard.count == 1) return fmt::format("checking all {} entries of the cache", total);
  std::string list;
  for (auto i : indices) list += (list.empty() ? "" : ", ") + std::to_string(i);
  return fmt::format("shard {}/{}: checking entries {} of the cache's {}", shard.index, shard.count,
                     indices.empty() ? "none" : list, total);
}

std::string GateReport::checked() const {
  std::vector<std::size_t> indices;
  for (const auto& e : entries) indices.push_back(e.index);
  return checked_entries(shard, indices, cache_entries);
}

bool GateReport::pass() const { return failures() == 0; }

std::size_t GateReport::failures() const {
  std::size_t n = 0;
  for (const auto& e : entries) n += !e.pass();
  return n;
}

GateReport run_gate(const GateOptions& options, const std::function<void(const std::string&)>& progress) {
  return Gate(options).run(progress);
}

}  // namespace hone
