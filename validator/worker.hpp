#pragma once
// The worker process that runs candidates. A kernel that crashes, hangs or corrupts the process
// costs one candidate: the verdict says what happened and the next evaluation starts a new worker.
#include <algorithm>
#include <filesystem>
#include <string>
#include <sys/types.h>

#include "validator/evaluation.hpp"
#include "validator/verdict.hpp"

namespace hone {

/// How long a worker may stay silent in an evaluation unless told otherwise (--timeout): a
/// backstop, as a hang is cut off per launch (validator/hang_limit.hpp, watched_device.hpp). The
/// worker speaks before every stage and every launch, so an evaluation may take longer in all:
/// on emu at a model's shapes one takes many minutes, and it is not a hang.
constexpr double kEvaluationTimeoutS = 300;

/// The silence limit when a launch may take `launch_limit_s` (`--timeout`; 0: derived): never
/// below kEvaluationTimeoutS, and room for a launch's own verdict to arrive first.
inline double evaluation_timeout_s(double launch_limit_s) {
  return launch_limit_s * 2 > kEvaluationTimeoutS ? launch_limit_s * 2 : kEvaluationTimeoutS;
}

/// The silence limit of one evaluation: the worker's own, or room for one launch of the request
/// (its launch limit, derived from the reference's time on this device) when that is longer.
inline double silence_limit_s(double worker_timeout_s, double launch_limit_s) {
  return std::max(worker_timeout_s, launch_limit_s > 0 ? evaluation_timeout_s(launch_limit_s) : 0.0);
}

/// A bound on the launches (and groups of timed launches) of one evaluation: with the silence
/// limit, what sizes the evaluation's CPU-time limit, the last backstop.
constexpr int kMaxLaunchesPerEvaluation = 64;

struct WorkerOptions {
  std::string device_kind = "emu";
  std::string arch = "sm_90";
  double timeout_s = kEvaluationTimeoutS;  // a worker silent for longer in an evaluation is killed
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
