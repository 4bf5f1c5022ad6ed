// The cuda device on a real GPU: buffers, modules from CUBIN and from PTX, launches, event timing
// and replayed batches. Without a GPU every case says why it was skipped.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "runtime/cuda_device.hpp"
#include "runtime/cuda_driver.hpp"
#include "runtime/device_select.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "scale_kernel.hpp"

namespace {

// Opens GPU 0, or says why not (the MESSAGE is the skip notice ctest's output shows).
std::unique_ptr<hone::Device> gpu_or_skip() {
  const std::string why = hone::cuda_unavailable_reason();
  if (!why.empty()) {
    MESSAGE("skipped, no GPU here: " << why);
    return nullptr;
  }
  return hone::make_cuda_device(0);
}

// Runs scale(x, 3, n) on the device and returns x.
std::vector<float> run_scale(hone::Device& device, hone::LoadedKernel& k, int n) {
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  hone::DeviceBuffer buf(device, n * sizeof(float));
  device.upload(buf.get(), host.data(), n * sizeof(float));
  void* ptr = buf.get();
  float f = 3;
  void* args[] = {&ptr, &f, &n};
  hone::LaunchDims dims;
  dims.grid = {(n + 255) / 256, 1, 1};
  dims.block = {256, 1, 1};
  device.launch(k, dims, args);
  device.download(host.data(), buf.get(), n * sizeof(float));
  return host;
}

}  // namespace

TEST_CASE("cuda device: properties, the measured copy bandwidth and a kernel from its own CUBIN") {
  auto device = gpu_or_skip();
  if (!device) return;
  const hone::DeviceInfo& info = device->info();
  MESSAGE(info.id() << " " << info.arch << ": copy " << info.copy_bandwidth_gbs << " GB/s, L2 " << info.l2_bytes << " bytes");
  CHECK(info.kind == "cuda");
  CHECK(info.timer == "gpu");
  CHECK(info.copy_bandwidth_gbs > 100);
  CHECK(info.l2_bytes > 0);
  CHECK(info.replays_batches);
  auto k = device->load(hone::test::scale_kernel_for(hone::compile_arch_for(info.arch, hone::nvrtc_supported_archs())));
  const auto x = run_scale(*device, *k, 1000);
  for (int i : {0, 1, 500, 999}) CHECK(x[i] == 3.0f * i);
}

TEST_CASE("cuda device: PTX for an older architecture is JIT-compiled, a CUBIN for another one is refused by name") {
  auto device = gpu_or_skip();
  if (!device) return;
  hone::KernelImage older = hone::test::scale_kernel_for("sm_80");
  if (device->info().arch == "sm_80") {
    MESSAGE("skipped: the GPU is sm_80 itself");
    return;
  }
  auto k = device->load(older);  // the sm_80 CUBIN does not match; its PTX does
  CHECK(run_scale(*device, *k, 300)[299] == 3.0f * 299);
  older.ptx.clear();
  CHECK_THROWS_WITH(device->load(older), doctest::Contains("has a CUBIN for sm_80, none of which runs on"));
}

TEST_CASE("cuda device: event timing of single launches and of replayed batches over rotated argument sets") {
  auto device = gpu_or_skip();
  if (!device) return;
  auto k = device->load(hone::test::scale_kernel_for(hone::compile_arch_for(device->info().arch, hone::nvrtc_supported_archs())));
  int n = 1 << 20;
  hone::DeviceBuffer a(*device, n * sizeof(float)), b(*device, n * sizeof(float));
  void* pa = a.get();
  void* pb = b.get();
  float f = 1;
  void* args_a[] = {&pa, &f, &n};
  void* args_b[] = {&pb, &f, &n};
  hone::LaunchDims dims;
  dims.grid = {n / 256, 1, 1};
  dims.block = {256, 1, 1};
  const double single = device->timed_launch(*k, dims, args_a);
  const double batched = device->timed_batch(*k, dims, {args_a, args_b}, 20);
  MESSAGE("scale over 4 MiB: " << single << " ms alone, " << batched << " ms per launch in a batch of 20");
  CHECK(single > 0);
  CHECK(batched > 0);
  CHECK(batched < 10 * single + 0.01);
  CHECK_FALSE(device->lost());
  // A launch the driver refuses is an error naming the call and the launch, and is not sticky.
  dims.block = {2048, 1, 1};
  CHECK_THROWS_WITH(device->launch(*k, dims, args_a), doctest::Contains("out of range"));
  CHECK_FALSE(device->lost());
}
