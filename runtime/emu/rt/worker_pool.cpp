#include "worker_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace hone::emu {

struct WorkerPool::Job {
  std::int64_t count = 0;
  std::atomic<std::int64_t> next{0};
  const std::function<void(std::int64_t)>* body = nullptr;
  const std::atomic<bool>* stop = nullptr;
  int helpers = 0;  // workers inside drain(); guarded by the pool's mutex

  bool exhausted() const { return next.load() >= count || stop->load(); }
  void drain() {
    while (!stop->load()) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= count) return;
      (*body)(i);
    }
  }
};

WorkerPool& WorkerPool::instance() {
  // Leaked on purpose: workers block forever on the condition variable, and process exit must
  // neither join them nor destroy what they wait on.
  static WorkerPool* pool = [] {
    unsigned n = std::max(1u, std::thread::hardware_concurrency());
    if (const char* v = std::getenv("HONE_EMU_THREADS"); v && *v) n = static_cast<unsigned>(std::max(1L, std::atol(v)));
    return new WorkerPool(n);
  }();
  return *pool;
}

WorkerPool::WorkerPool(unsigned threads) : wanted_workers_(threads - 1) {
  start_missing();
  // A forked child has none of the workers: it runs its launches on the calling thread alone.
  // The mutex is held across fork so that the child never inherits it locked by a thread it
  // does not have.
  static WorkerPool* self = this;
  pthread_atfork([] { self->mutex_.lock(); }, [] { self->mutex_.unlock(); },
                 [] {
                   self->live_workers_ = 0;
                   self->jobs_.clear();
                   self->mutex_.unlock();
                 });
}

unsigned WorkerPool::start_missing() {
  std::lock_guard lock(mutex_);
  while (live_workers_ < wanted_workers_) {
    std::thread([this] { work(); }).detach();
    ++live_workers_;
  }
  return live_workers_ + 1;
}

void WorkerPool::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return !jobs_.empty(); });
    std::shared_ptr<Job> job = jobs_.front();
    if (job->exhausted()) {
      jobs_.pop_front();
      continue;
    }
    ++job->helpers;
    lock.unlock();
    job->drain();
    lock.lock();
    if (--job->helpers == 0) helper_done_.notify_all();
  }
}

void WorkerPool::parallel_for(std::int64_t count, const std::function<void(std::int64_t)>& body,
                              const std::atomic<bool>& stop) {
  auto job = std::make_shared<Job>();
  job->count = count;
  job->body = &body;
  job->stop = &stop;
  if (count > 1 && live_workers_ > 0) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(job);
    }
    if (count == 2) wake_.notify_one();
    else wake_.notify_all();
  }
  job->drain();
  std::unique_lock lock(mutex_);
  // No worker may join once the job has left the queue; then wait for those inside it.
  jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
  helper_done_.wait(lock, [&] { return job->helpers == 0; });
}

}  // namespace hone::emu
