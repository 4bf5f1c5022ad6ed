#pragma once
// What a tuning job tells its user as it goes. The CLI draws a bar with rate and ETA on a
// terminal and prints plain lines otherwise; tests listen for the events they check.
#include <cstddef>
#include <string>

#include "knowledge_db/knowledge_db.hpp"
#include "tuner/task.hpp"

namespace hone {

struct TaskOutcome;

class JobProgress {
 public:
  virtual ~JobProgress() = default;
  /// A line worth reading: how the device was chosen, the reference's time, a warning.
  virtual void note(const std::string& line) {}
  /// Task `index` (from 1) of `total` starts, planning at most `planned` candidates.
  virtual void task_started(std::size_t index, std::size_t total, const Task& task, std::size_t planned) {}
  /// A candidate is done: evaluated now, or its result `reused` from an earlier run.
  virtual void candidate_done(const std::string& label, const ResultRecord& result, bool reused) {}
  virtual void task_finished(const TaskOutcome& outcome) {}
};

}  // namespace hone
