#include "runtime/emu_device.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "runtime/emu/rt/fault_handler.hpp"
#include "runtime/emu/rt/grid.hpp"
#include "runtime/emu/rt/guarded_memory.hpp"
#include "runtime/emu/rt/stack_pool.hpp"
#include "runtime/emu_module.hpp"
#include "runtime/fatal_fault.hpp"
#include "runtime/ptx_cluster.hpp"

namespace hone {

namespace {

struct EmuKernel : LoadedKernel {
  explicit EmuKernel(EmuModule m) : module(std::move(m)) {}
  EmuModule module;
};

class EmuDevice : public Device {
 public:
  EmuDevice(const std::string& arch, EmuDeviceOptions options) : options_(std::move(options)) {
    info_ = {"emu", cpu_model_name(), arch, "cpu"};
  }

  const DeviceInfo& info() const override { return info_; }

  // Guarded mappings, 256-byte aligned as cudaMalloc gives at least that: vector loads behave
  // the same, and the first byte past a buffer faults.
  void* alloc(std::size_t bytes) override { return memory_.allocate(bytes); }
  void release(void* ptr) override { memory_.release(ptr); }
  void name_buffer(void* ptr, const std::string& name) override { memory_.name(ptr, name); }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  const void* host_readable(const void* src) const override { return src; }

  std::unique_ptr<LoadedKernel> load(const KernelImage& image) override {
    if (image.emu_object.empty()) throw std::runtime_error("kernel '" + image.entry + "' was not built for the emu device");
    return std::make_unique<EmuKernel>(
        EmuModule::load(image.emu_object, image.emu_invoke, ptx_cluster_dims(image.ptx, image.entry)));
  }

  void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override {
    if (options_.before_launch) options_.before_launch();
    static_cast<EmuKernel&>(kernel).module.launch(dims, args, seed_.load());
    // A write into a canary zone does not fault: it is found here, after the launch.
    if (std::string overwrite = memory_.check_canaries(); !overwrite.empty()) throw EmuKernelError(overwrite);
  }

  double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before) override {
    for (const BufferCopy& c : before) std::memcpy(c.dst, c.src, c.bytes);
    auto start = std::chrono::steady_clock::now();
    launch(kernel, dims, args);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  void set_schedule_seed(std::uint64_t seed) override { seed_.store(seed); }

 private:
  DeviceInfo info_;
  EmuDeviceOptions options_;
  emu::GuardedMemory memory_;
  std::atomic<std::uint64_t> seed_{0};
};

}  // namespace

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        return name;
      }
    }
  }
  return "cpu";
}

std::unique_ptr<Device> make_emu_device(const std::string& arch, EmuDeviceOptions options) {
  return std::make_unique<EmuDevice>(arch, std::move(options));
}

void report_emu_faults_fatally() {
  emu::set_fatal_reporter(&report_fatal_fault);
  emu::install_fault_handler();
}

unsigned start_emu_threads() { return emu::start_block_threads(); }

std::uint64_t emu_fiber_switches() { return emu::fiber_switch_count(); }

std::uint64_t emu_shuffle_records() { return emu::shuffle_record_count(); }

std::size_t emu_fiber_stack_bytes() { return emu::StackPool::stack_bytes(); }

}  // namespace hone
