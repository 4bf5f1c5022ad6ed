#pragma once
// A device whose kernel launches are watched for hangs: a launch still running after the limit
// ends the process that runs the evaluation, with a fault report that names the launch and the
// limit (runtime/fatal_fault.hpp); the worker passes it on and the next candidate gets a new
// worker. So a kernel that spins forever at some size costs seconds, not the evaluation's whole
// time limit, on emu (the evaluation's child process) and on a GPU (the worker) alike.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/device.hpp"

namespace hone {

class WatchedDevice : public Device {
 public:
  /// Watches `inner`'s launches with a limit of `limit_s` seconds; `basis` says where the limit
  /// comes from, for the verdict ("1000 times the reference's 0.8 ms launch, at least 5 s").
  WatchedDevice(Device& inner, double limit_s, std::string basis);
  ~WatchedDevice() override;

  /// Names the launches that follow, for the verdict of a hang ("the candidate at tokens=7,...").
  void set_activity(std::string what);

  const DeviceInfo& info() const override { return inner_.info(); }
  void* alloc(std::size_t bytes) override { return inner_.alloc(bytes); }
  void release(void* ptr) override { inner_.release(ptr); }
  void name_buffer(void* ptr, const std::string& name) override { inner_.name_buffer(ptr, name); }
  void upload(void* dst, const void* src, std::size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { inner_.download(dst, src, bytes); }
  const void* host_readable(const void* src) const override { return inner_.host_readable(src); }
  std::unique_ptr<LoadedKernel> load(const KernelImage& image) override { return inner_.load(image); }
  void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override;
  double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before) override;
  double timed_batch(LoadedKernel& kernel, const LaunchDims& dims, const std::vector<void**>& arg_sets, int launches,
                     const BufferCopies& before) override;
  bool lost() const override { return inner_.lost(); }
  void set_schedule_seed(std::uint64_t seed) override { inner_.set_schedule_seed(seed); }

 private:
  // Arms the watch for one launch (or batch) while it lives.
  struct Armed {
    explicit Armed(WatchedDevice& d);
    ~Armed();
    WatchedDevice& device;
  };
  void watch();

  Device& inner_;
  const double limit_s_;
  const std::string basis_;
  std::string activity_ = "a launch";
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false, ending_ = false;
  std::uint64_t generation_ = 0;  // launches armed so far
  std::string reason_;            // the verdict of a hang of the launch armed now, written before it starts
  std::thread watcher_;
};

}  // namespace hone
