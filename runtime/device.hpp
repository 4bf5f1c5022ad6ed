#pragma once
// The one interface every device implements (emu, cuda, none): load a compiled kernel, move
// buffers, launch, and time a launch with the device's own clock.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/launch_rule.hpp"

namespace hone {

struct DeviceInfo {
  std::string kind;   // "emu" | "cuda" | "none"
  std::string name;   // "AMD EPYC 7B13" or "NVIDIA H200"
  std::string arch;   // the architecture kernels are compiled and checked for: "sm_90"
  std::string timer;  // "cpu" for emu (never passes for a GPU time), "gpu" for device events
  // What no kernel can beat, for the impossible-speed check: 0 where unknown (the check is then
  // skipped and says so).
  double copy_bandwidth_gbs = 0;   // measured device memory bandwidth, GB/s
  double peak_bandwidth_gbs = 0;   // the memory's peak by its clock and bus width, GB/s
  double peak_gflops = 0;          // peak arithmetic rate, GFLOP/s
  // What the timing plans around (validator/timing_plan.hpp): 0 and false where unknown.
  double l2_bytes = 0;             // last-level cache, flushed between timed runs
  bool replays_batches = false;    // timed_batch records launches once and replays them (CUDA graphs)

  /// "emu:AMD EPYC 7B13", the device column of results and winners.
  std::string id() const { return kind + ":" + name; }
};

/// What a device loads a compiled kernel from.
struct KernelImage {
  std::string entry;
  std::filesystem::path emu_object;  // emu: the shared object
  std::string emu_invoke;            // emu: its invoke symbol
  std::string cubin;                 // cuda
  std::string ptx;                   // cuda, when no CUBIN matches the device
};

/// A device-to-device copy. A timed run makes its copies before it starts, outside its timed
/// region: the validator restores every timed launch's outputs (poisoned) and in-out buffers
/// (fresh) with them, so that a timed launch starts where a checked one does.
struct BufferCopy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};
using BufferCopies = std::vector<BufferCopy>;

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  /// Device memory; on emu it is host memory. Returned pointers are what kernels receive.
  virtual void* alloc(std::size_t bytes) = 0;
  virtual void release(void* ptr) = 0;
  /// Names an allocation (the kernel argument it holds), so a fault in it can say which buffer.
  virtual void name_buffer(void* ptr, const std::string& name) {}
  virtual void upload(void* device_dst, const void* host_src, std::size_t bytes) = 0;
  virtual void download(void* host_dst, const void* device_src, std::size_t bytes) = 0;
  /// `device_src` as the host may read it in place (emu: device memory is host memory), or
  /// nullptr where it must be downloaded. Checking a gigabyte of inputs unchanged then costs a
  /// comparison, not a copy and a comparison.
  virtual const void* host_readable(const void* device_src) const { return nullptr; }

  virtual std::unique_ptr<LoadedKernel> load(const KernelImage& image) = 0;
  /// Runs one launch to completion; args[i] points to the value of parameter i. Throws
  /// std::runtime_error (or a subclass) with the reason when the kernel faults.
  virtual void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) = 0;
  /// Makes the copies `before`, then runs one launch and returns its duration in milliseconds on
  /// the device's clock (the copies not in it).
  virtual double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before = {}) = 0;
  /// Times `launches` launches run back to back, launch i with arg_sets[i % arg_sets.size()], as
  /// one measurement, after the copies `before` (outside the time); returns milliseconds per
  /// launch. A device that can record the batch and replay it (info().replays_batches) keeps host
  /// launch overhead out of the time.
  virtual double timed_batch(LoadedKernel& kernel, const LaunchDims& dims, const std::vector<void**>& arg_sets, int launches,
                             const BufferCopies& before = {}) {
    double total = 0;
    for (int i = 0; i < launches; ++i)
      total += timed_launch(kernel, dims, arg_sets[static_cast<std::size_t>(i) % arg_sets.size()], i == 0 ? before : BufferCopies{});
    return total / launches;
  }
  /// Whether a fault left this device unusable for the rest of the process (a sticky CUDA error):
  /// the worker that holds it must be replaced.
  virtual bool lost() const { return false; }

  /// The order in which later launches run their blocks, warps and threads, drawn from `seed`
  /// (0: the plain order). Running a kernel under two seeds and comparing exposes races on an
  /// emulated device; a GPU schedules as it likes and ignores this.
  virtual void set_schedule_seed(std::uint64_t seed) {}
};

/// A device allocation that is released when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device& device, std::size_t bytes) : device_(&device), bytes_(bytes), ptr_(device.alloc(bytes)) {}
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      device_ = o.device_;
      bytes_ = o.bytes_;
      ptr_ = o.ptr_;
      o.ptr_ = nullptr;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void reset() {
    if (ptr_) device_->release(ptr_);
    ptr_ = nullptr;
  }
  Device* device_ = nullptr;
  std::size_t bytes_ = 0;
  void* ptr_ = nullptr;
};

}  // namespace hone
