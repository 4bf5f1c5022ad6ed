#include "runtime/none_device.hpp"

#include <stdexcept>

namespace hone {

namespace {

class NoneDevice : public Device {
 public:
  explicit NoneDevice(const std::string& arch) { info_ = {"none", arch, arch, "", 0, 0}; }
  const DeviceInfo& info() const override { return info_; }
  void* alloc(std::size_t) override { refuse(); }
  void release(void*) override {}
  void upload(void*, const void*, std::size_t) override { refuse(); }
  void download(void*, const void*, std::size_t) override { refuse(); }
  std::unique_ptr<LoadedKernel> load(const KernelImage&) override { refuse(); }
  void launch(LoadedKernel&, const LaunchDims&, void**) override { refuse(); }
  double timed_launch(LoadedKernel&, const LaunchDims&, void**, const BufferCopies&) override { refuse(); }

 private:
  [[noreturn]] static void refuse() { throw std::logic_error("the none device compiles and checks; it runs nothing"); }
  DeviceInfo info_;
};

}  // namespace

std::unique_ptr<Device> make_none_device(const std::string& arch) { return std::make_unique<NoneDevice>(arch); }

}  // namespace hone
