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
#include "validator/candidate_validation.hpp"

namespace hone {

namespace {

namespace kc = kernel_cache;

struct LoadedCache {
  std::string dir;
  kc::Manifest manifest;
  std::map<std::size_t, std::string> sources;  // entry index -> its verified source
};

// The manifest and every file it names, checked; anything wrong is bad input (exit 2), never a
// gate failure: a corrupted cache says nothing about the kernels.
LoadedCache load_cache(const std::filesystem::path& dir) {
  LoadedCache c;
  c.dir = dir.string();
  try {
    c.manifest = kc::read_manifest(c.dir);
    for (const auto& e : c.manifest.entries) {
      for (const auto& [kind, path] : e.files) {
        std::string data = kc::read_verified(c.dir + "/" + path, e.sha256.at(kind));
        if (kind == "source") c.sources[e.index] = std::move(data);
      }
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

EntryTask entry_task(const kc::CacheEntry& e, const std::string& device_kind, const TimingOptions& timing) {
  EntryTask t;
  for (const auto& [k, v] : e.static_dims) t.shape[k] = v;
  for (const auto& [k, b] : e.buckets) {
    t.shape[k] = b.hi;
    t.options.buckets[k] = Bucket{b.lo, b.hi};
  }
  t.options.arch = e.arch;
  t.options.device_kind = device_kind;
  t.options.scalars = e.scalars;
  t.options.timing = timing;
  return t;
}

Candidate entry_candidate(const LoadedCache& c, const kc::CacheEntry& e) {
  Candidate k;
  k.op = e.op;
  k.origin = "template";  // exported winners come from hone's templates: trusted source, as when they were tuned
  k.variant = e.variant;
  k.entry = e.entry;
  k.source = c.sources.at(e.index);
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
    // Recorded GPU times compare only with times from the same GPU.
    if (kind_ == "cuda") device_id_ = open_device(kind_, "sm_90")->info().id();
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
    for (const auto& e : cache.manifest.entries) {
      const auto start = std::chrono::steady_clock::now();
      GateEntryResult r = check_entry(cache, e, baseline.get());
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (progress) progress(fmt::format("{} {} ({}): {}", r.pass() ? "pass" : "FAIL", r.name, r.entry, r.pass() ? r.validation : r.failures.front()));
      report.entries.push_back(std::move(r));
    }
    return report;
  }

 private:
  Worker* worker(const std::string& arch) {
    if (kind_ == "none") return nullptr;
    auto& w = workers_[arch];
    if (!w) w = std::make_unique<Worker>(WorkerOptions{kind_, arch, 300, {}});
    return w.get();
  }

  Verdict validate(const LoadedCache& c, const kc::CacheEntry& e, const OpSpec& op) {
    const EntryTask t = entry_task(e, kind_, opt_.timing);
    return validate_candidate(op, entry_candidate(c, e), t.shape, t.options, worker(e.arch));
  }

  GateEntryResult check_entry(const LoadedCache& cache, const kc::CacheEntry& e, const LoadedCache* baseline) {
    GateEntryResult r;
    r.name = e.label();
    r.entry = e.entry;
    r.op = e.op;
    r.arch = e.arch;
    OpSpec op;
    try {
      op = load_op(templates_root(), e.op);
    } catch (const InputError& err) {
      r.validation = "not validated";
      r.failures.push_back(std::string("the op family is not installed here, so nothing can check the kernel: ") + err.what());
      return r;
    }

    const Verdict v = validate(cache, e, op);
    r.validation = v.pass ? (kind_ == "none" ? "passed the static stage (device none)" : "passed every stage on " + kind_)
                          : "rejected at the " + v.stage + " stage: " + v.reason;
    if (!v.pass) r.failures.push_back("wrong: " + r.validation);

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
  std::map<std::string, std::unique_ptr<Worker>> workers_;
};

}  // namespace

std::vector<std::string> resource_regressions(const ResourceFigures& recorded, const ResourceFigures& now) {
  std::vector<std::string> out;
  if (recorded.registers >= 0 && now.registers > recorded.registers)
    out.push_back(fmt::format("{} registers per thread, recorded {}", now.registers, recorded.registers));
  if (now.spill_bytes > recorded.spill_bytes)
    out.push_back(fmt::format("{} bytes of register spills, recorded {}", now.spill_bytes, recorded.spill_bytes));
  return out;
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
