#pragma once
// A tuning job: for every task of a model, the reference is timed as the baseline, candidates
// from the template proposer are compiled in parallel ahead of the device, validated and timed
// one at a time in the worker, and every result and winner goes to the database as it comes.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "tuner/task.hpp"

namespace hone {

struct TuneOptions {
  std::filesystem::path model_file;
  std::set<std::string> ops;               // empty: every op of the model
  std::string device = "auto";
  std::filesystem::path db_file = "hone.db";
  std::size_t budget = 20;                 // candidates per task, the reference not counted
  std::string strategy = "auto";
  std::string arch = "sm_90";
  std::uint64_t seed = 1;                  // the search's seed; validation inputs are always fresh
  unsigned compile_threads = 0;            // 0: hardware concurrency
  double worker_timeout_s = 300;
  int check_seeds = 2;                     // random input sets per reference check
};

struct TaskOutcome {
  Task task;
  std::size_t space = 0;                   // valid configurations at the task's shape
  std::size_t tried = 0, passed = 0, reused = 0;
  std::string strategy;
  double baseline_ms = 0;
  std::optional<std::string> winner_label;
  double winner_ms = 0;
  std::string error;                       // why the task has no winner, if it has none
};

struct TuneReport {
  DeviceInfo device;
  std::string note;                        // how the device was chosen, for the user
  std::vector<TaskOutcome> tasks;
  bool all_won() const;
};

/// Progress lines for the user (one per candidate and per task).
using ProgressSink = std::function<void(const std::string& line)>;

/// Runs the job. Throws InputError for bad input (model file, ops, device, strategy), DbError for
/// a database that cannot be used; a bad kernel never throws, it is a failed result.
TuneReport run_tuning_job(const TuneOptions& options, const ProgressSink& progress);

}  // namespace hone
