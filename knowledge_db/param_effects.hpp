#pragma once
// Mining the results for parameter effects: within each task, the best time of each value of a
// template parameter; across tasks, a value that keeps winning, by a consistent margin, is an
// effect worth a lesson. Pure functions of the measurements, so they are tested on their own.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone {

/// One passing, timed result of a template candidate (the latest for its task, candidate and device).
struct Measurement {
  std::int64_t result_id = 0;
  std::int64_t task_id = 0;
  std::string op, variant, arch, device, timer;
  nlohmann::json params;       // {"BLOCK": 256, "VEC": 8}
  nlohmann::json shape;        // the task's representative shape
  nlohmann::json buckets;      // the task's dynamic ranges, {"tokens": [lo, hi]}
  double time_ms = 0;
};

struct DistillOptions {
  int min_support = 3;         // tasks a value must win
  double min_agreement = 0.75; // share of the compared tasks it must win
  double min_speedup = 1.05;   // median margin over the next value where it wins
  double merge_similarity = 0.9;  // cosine of local vectors above which two lessons are one
};

/// A parameter value that wins across tasks.
struct ParamEffect {
  std::string op, variant, param, arch, device, timer;
  nlohmann::json value;        // the winning value
  int support = 0;             // tasks it won
  int compared = 0;            // tasks where the parameter had two or more values measured
  double median_speedup = 1;   // next value's best time / its best time, median over the tasks it won
  std::vector<std::int64_t> evidence;  // per task it won: its best result and the runner-up's
  std::vector<std::int64_t> tasks;
  std::map<std::string, std::pair<long long, long long>> dims;  // each dim's range over the tasks it won

  /// The claim's identity, without the value: a new value for it replaces the old lesson.
  std::string key() const;
};

/// How often each value won, per (op, variant, param, device): the whole picture, also for
/// groups without an effect (distillation uses it to see contradictions).
struct ParamTally {
  std::string key;                   // as ParamEffect::key
  int compared = 0;
  std::map<std::string, int> wins;   // value (JSON text) -> tasks won
};

/// The effects with enough support, agreement and margin, strongest first.
std::vector<ParamEffect> find_param_effects(const std::vector<Measurement>& measurements, const DistillOptions& options);
/// Win counts of every (op, variant, param, device) with at least one compared task.
std::vector<ParamTally> tally_params(const std::vector<Measurement>& measurements);

}  // namespace hone
