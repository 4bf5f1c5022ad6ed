#pragma once
// What the worker is asked to do with one candidate: the op, the shape and buckets it must serve,
// the candidate and reference kernels, the seeds and which stages to run. It travels to the
// worker process as JSON.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expr.hpp"
#include "core/launch_rule.hpp"
#include "core/model_shapes.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"

namespace hone {

struct KernelUnderTest {
  KernelImage image;
  LaunchRule launch;
};

struct TimingOptions {
  int warmup_runs = 1;
  double warmup_ms = 20;       // warm up for at least this long, or warmup_runs, whichever is more
  int repeats = 5;
  double max_total_ms = 2000;  // stop repeating once this much time went into timing (after 3 runs)
  double max_spread = 0.25;    // (p90 - p10) / median above this: measure again
  int remeasures = 2;          // at most this many times
};

struct EvaluationRequest {
  std::filesystem::path spec_dir;        // the op family folder (its spec.json)
  /// The spec's content hash as the requester loaded it ("": not checked). The worker reads the
  /// spec from disk again; a spec edited since (hone updated under a running job) would otherwise
  /// judge the candidate by other rules than the job's, silently.
  std::string spec_hash;
  Bindings shape;                        // the visible shape: the one the candidate is tuned at
  std::map<std::string, Bucket> buckets; // dynamic dims and the ranges the candidate must serve
  std::map<std::string, double> scalars; // float scalar arguments overriding the spec's defaults
  KernelUnderTest reference;
  KernelUnderTest candidate;
  bool check = true;                     // false: the candidate is the reference itself, only timed
  std::vector<std::uint64_t> seeds;      // visible inputs
  std::uint64_t hidden_seed = 0;         // 0: drawn in the worker, at validation time
  bool time = true;
  /// Time the candidate and a baseline in turns, sample for sample, so both medians come from the
  /// same conditions (the winner against the baseline); the baseline's figures go to
  /// detail.baseline.
  bool time_against_baseline = false;
  std::optional<KernelUnderTest> baseline;  // the baseline timed in turns; unset: the reference
  TimingOptions timing;
  /// A launch still running after this many seconds is a hang: the evaluation ends with that
  /// verdict (validator/launch_watchdog.hpp). 0: no limit but the worker's for the whole
  /// evaluation.
  double launch_limit_s = 0;
  std::string launch_limit_basis;  // where the limit comes from, for the verdict
};

/// The bytes of every buffer `op` takes at the largest shape `r` evaluates it at (each dynamic dim
/// at its bucket's top): what the worker's memory limit must leave room for, several times over.
std::uint64_t request_buffer_bytes(const OpSpec& op, const EvaluationRequest& r);

/// The bytes of every buffer `op` takes at `shape`.
std::uint64_t buffer_bytes_at(const OpSpec& op, const Bindings& shape);

void to_json(nlohmann::json& j, const EvaluationRequest& r);
void from_json(const nlohmann::json& j, EvaluationRequest& r);

}  // namespace hone
