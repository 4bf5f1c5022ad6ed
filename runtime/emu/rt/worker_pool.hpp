#pragma once
// A small pool of OS threads that run the blocks of emulated launches in parallel. The thread
// that launches always takes part, so a launch progresses even when every worker is busy with
// another launch (or, after a fork, when the workers do not exist in this process until
// start_missing() starts them again).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace hone::emu {

class WorkerPool {
 public:
  /// The process-wide pool: $HONE_EMU_THREADS threads in all when set, else the hardware's.
  static WorkerPool& instance();

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Calls body(i) once for each i in [0, count), concurrently on up to threads() threads,
  /// until all are done or stop becomes true (then the remaining indices are skipped). body must
  /// not throw.
  void parallel_for(std::int64_t count, const std::function<void(std::int64_t)>& body,
                    const std::atomic<bool>& stop);
  unsigned threads() const { return live_workers_ + 1; }
  /// Starts the workers this process lacks (a forked child has none; an evaluation child calls
  /// this before its sandbox forbids starting threads); returns threads().
  unsigned start_missing();

 private:
  explicit WorkerPool(unsigned threads);
  struct Job;
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable helper_done_;
  std::deque<std::shared_ptr<Job>> jobs_;
  unsigned live_workers_ = 0;
  unsigned wanted_workers_ = 0;
};

}  // namespace hone::emu
