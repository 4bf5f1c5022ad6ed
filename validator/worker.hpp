#pragma once
// The worker process that runs candidates. A kernel that crashes, hangs or corrupts the process
// costs one candidate: the verdict says what happened and the next evaluation starts a new worker.
#include <filesystem>
#include <string>
#include <sys/types.h>

#include "validator/evaluation.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// What one evaluation may take in all unless told otherwise (--timeout): a backstop, as a hang
/// is cut off per launch (validator/hang_limit.hpp, validator/watched_device.hpp).
constexpr double kEvaluationTimeoutS = 300;

/// The whole evaluation's limit when a launch may take `launch_limit_s` (`--timeout`; 0: derived):
/// never below kEvaluationTimeoutS, and room for a launch's own verdict to arrive first.
inline double evaluation_timeout_s(double launch_limit_s) {
  return launch_limit_s * 2 > kEvaluationTimeoutS ? launch_limit_s * 2 : kEvaluationTimeoutS;
}

struct WorkerOptions {
  std::string device_kind = "emu";
  std::string arch = "sm_90";
  double timeout_s = kEvaluationTimeoutS;  // per evaluation; a worker silent for longer is killed
  std::filesystem::path executable;  // empty: find_worker_executable()
};

/// $HONE_WORKER, else hone-worker next to the running executable, else the one hone was built with.
std::filesystem::path find_worker_executable();

class Worker {
 public:
  explicit Worker(WorkerOptions options);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Runs one evaluation in the worker process. Never throws for what a kernel does: a crash or
  /// a timeout is a failing verdict with stage "worker" ... and the stage it was in, in the reason.
  Verdict evaluate(const EvaluationRequest& request);

  /// How many worker processes were started so far (1 + replacements).
  int started() const { return started_; }

 private:
  void start();
  void stop(bool kill_it);
  Verdict lost_worker(const std::string& what, const std::string& stage);

  WorkerOptions options_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string pending_;  // bytes read past the last complete line
  int started_ = 0;
};

}  // namespace hone
