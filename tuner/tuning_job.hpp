#pragma once
// A tuning job: the tasks of a model (or this shard's share of them), each tuned on the device at
// hand by its proposers, everything stored as it comes. A task finished under the same plan in an
// earlier run is not redone, so an interrupted job continues where it stopped.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "tuner/llm/llm_options.hpp"
#include "tuner/job_progress.hpp"
#include "core/shard.hpp"
#include "tuner/task.hpp"
#include "tuner/task_tuner.hpp"

namespace hone {

struct TuneOptions {
  std::filesystem::path model_file;
  std::set<std::string> ops;               // empty: every op of the model
  std::string device = "auto";
  std::filesystem::path db_file = "hone.db";
  std::size_t budget = 20;                 // template candidates per task, the reference not counted
  std::string strategy = "auto";
  std::optional<double> task_seconds;      // a time budget per task's search
  std::size_t plateau = 0;                 // stop a search after this many candidates without a better time
  std::string arch;                        // "": the GPU's own on cuda, sm_90 on emu and none
  std::uint64_t seed = 1;                  // the search's seed; validation inputs are always fresh
  unsigned compile_threads = 0;            // 0: hardware concurrency
  double timeout_s = 0;                    // --timeout: a launch's limit; 0: derived from the reference's launch
                                           // (validator/hang_limit.hpp); an evaluation's: evaluation_timeout_s
  int check_seeds = 2;                     // random input sets per reference check
  Shard shard;
  std::vector<std::string> proposers = {"template"};  // "template", "llm", in the order they run per task
  LlmOptions llm;                          // the llm proposer's endpoint and budgets
  const std::atomic<bool>* stop = nullptr; // the user interrupted: finish the current candidate, then stop
};

struct TuneReport {
  DeviceInfo device;
  std::string note;                        // how the device was chosen, for the user
  std::size_t model_tasks = 0;             // before sharding
  std::vector<TaskOutcome> tasks;
  std::vector<NotTunedOp> not_tuned;       // the model's ops that no family covers (the shapes file's "not_tuned")
  bool interrupted = false;
  /// Every task ended as it should: with a winner, or (device none) with candidates that pass the static checks.
  bool all_won() const;
};

/// Runs the job. Throws InputError for bad input (model file, ops, device, strategy), DbError for
/// a database that cannot be used; a bad kernel never throws, it is a failed result.
TuneReport run_tuning_job(const TuneOptions& options, JobProgress& progress);

/// What decides a task's search, as a digest: the same plan on the same task is the same work.
std::string tuning_plan(const TuneOptions& options, const std::string& spec_hash);

}  // namespace hone
