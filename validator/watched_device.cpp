#include "validator/watched_device.hpp"

#include <chrono>

#include <fmt/format.h>

#include "runtime/fatal_fault.hpp"

namespace hone {

WatchedDevice::WatchedDevice(Device& inner, double limit_s, std::string basis)
    : inner_(inner), limit_s_(limit_s), basis_(std::move(basis)), watcher_([this] { watch(); }) {}

WatchedDevice::~WatchedDevice() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending_ = true;
  }
  changed_.notify_all();
  watcher_.join();
}

void WatchedDevice::set_activity(std::string what) { activity_ = std::move(what); }

WatchedDevice::Armed::Armed(WatchedDevice& d) : device(d) {
  {
    std::lock_guard<std::mutex> lock(d.mutex_);
    d.reason_ = fmt::format("hang: {} ran for {:.3g} s without finishing ({}); the process running it was ended", d.activity_,
                            d.limit_s_, d.basis_);
    d.armed_ = true;
    ++d.generation_;
  }
  d.changed_.notify_all();
}

WatchedDevice::Armed::~Armed() {
  {
    std::lock_guard<std::mutex> lock(device.mutex_);
    device.armed_ = false;
  }
  device.changed_.notify_all();
}

void WatchedDevice::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return armed_ || ending_; });
    if (ending_) return;
    const std::uint64_t launch = generation_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s_);
    // Woken when the launch ends (or another starts); past the deadline with it still running,
    // it hung: end the process, which is all that stops a kernel that never returns.
    if (!changed_.wait_until(lock, deadline, [&] { return !armed_ || generation_ != launch || ending_; }))
      report_fatal_fault(reason_.c_str());
  }
}

void WatchedDevice::launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) {
  Armed armed(*this);
  inner_.launch(kernel, dims, args);
}

double WatchedDevice::timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before) {
  Armed armed(*this);
  return inner_.timed_launch(kernel, dims, args, before);
}

double WatchedDevice::timed_batch(LoadedKernel& kernel, const LaunchDims& dims, const std::vector<void**>& arg_sets, int launches,
                                  const BufferCopies& before) {
  Armed armed(*this);
  return inner_.timed_batch(kernel, dims, arg_sets, launches, before);
}

}  // namespace hone
