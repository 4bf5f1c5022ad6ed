#pragma once
// Tuning one task: the baselines (tuner/baseline.hpp) are built and timed, each proposer's
// candidates are compiled ahead in parallel and validated one at a time in the worker, every
// result is stored as it comes, and the winner is re-timed in turns against each baseline: it
// stays the winner only when it beats them all, else the fastest baseline is the entry.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/op_spec.hpp"
#include "knowledge_db/knowledge_db.hpp"
#include "runtime/device.hpp"
#include "tuner/job_progress.hpp"
#include "tuner/proposer.hpp"
#include "tuner/task.hpp"
#include "validator/worker.hpp"

namespace hone {

struct TaskOutcome {
  Task task;
  std::size_t space = 0;                   // valid template configurations at the task's shape
  std::size_t tried = 0, passed = 0, reused = 0;
  std::string strategy;
  double baseline_ms = 0;                  // the fastest baseline's time, in turns with the winner when re-timed
  std::string baseline;                    // which baseline: "reference", "vendor:cublas"
  std::optional<std::string> winner_label;
  double winner_ms = 0;
  bool baseline_entry = false;             // no candidate beat the baseline: the entry is the baseline itself
  std::string best_candidate;              // then: the best candidate and how it fared against it
  bool static_only = false;                // device "none": compiled and checked, nothing ran
  bool from_earlier_run = false;           // finished under the same plan before: not redone
  bool interrupted = false;
  std::string error;                       // why the task has no winner, if it has none

  nlohmann::json to_json() const;          // what is kept of it when the task is done
  void restore(const nlohmann::json& summary);
};

struct TaskContext {
  const OpSpec* op = nullptr;
  std::int64_t task_id = 0;
  DeviceInfo device;
  std::string arch;
  unsigned compile_threads = 0;
  int check_seeds = 2;
  double timeout_s = 0;                    // --timeout: each launch's limit; 0: derived from the reference's launch
  KnowledgeDb* db = nullptr;
  Worker* worker = nullptr;                // null for device "none"
  JobProgress* progress = nullptr;
  const std::atomic<bool>* stop = nullptr; // set when the user interrupts: finish the current candidate, then stop
};

/// Runs `task` with the proposers in order, each up to its budget.
TaskOutcome tune_task(const Task& task, const TaskContext& context, std::vector<std::unique_ptr<Proposer>>& proposers);

}  // namespace hone
