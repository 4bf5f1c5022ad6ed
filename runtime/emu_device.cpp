#include "runtime/emu_device.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

#include "runtime/emu_module.hpp"

namespace hone {

namespace {

struct EmuKernel : LoadedKernel {
  explicit EmuKernel(EmuModule m) : module(std::move(m)) {}
  EmuModule module;
};

class EmuDevice : public Device {
 public:
  explicit EmuDevice(const std::string& arch) { info_ = {"emu", cpu_model_name(), arch, "cpu"}; }

  const DeviceInfo& info() const override { return info_; }

  void* alloc(std::size_t bytes) override {
    // 256-byte alignment, as cudaMalloc gives at least that: vector loads behave the same.
    void* p = std::aligned_alloc(256, ((bytes + 255) / 256) * 256);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void release(void* ptr) override { std::free(ptr); }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }

  std::unique_ptr<LoadedKernel> load(const KernelImage& image) override {
    if (image.emu_object.empty()) throw std::runtime_error("kernel '" + image.entry + "' was not built for the emu device");
    return std::make_unique<EmuKernel>(EmuModule::load(image.emu_object, image.emu_invoke));
  }

  void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override {
    static_cast<EmuKernel&>(kernel).module.launch(dims, args);
  }

  double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override {
    auto start = std::chrono::steady_clock::now();
    launch(kernel, dims, args);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  DeviceInfo info_;
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

std::unique_ptr<Device> make_emu_device(const std::string& arch) { return std::make_unique<EmuDevice>(arch); }

}  // namespace hone
