// The cuda device through the test double of the driver (tests/support/fake_libcuda.cpp), opened
// explicitly, so the process's own driver (a real one on a GPU machine) is left alone: which image
// a kernel is loaded from, shared memory limits, copies in and out, and the calls' errors named.
#include <doctest/doctest.h>

#include <vector>

#include "runtime/cuda_device.hpp"
#include "runtime/cuda_driver.hpp"
#include "scale_kernel.hpp"
#include "support/scoped_env.hpp"

namespace {

const hone::CudaDriver& fake_driver() {
  static const hone::CudaDriver driver = hone::init_cuda_driver(HONE_FAKE_LIBCUDA);
  return driver;
}

}  // namespace

TEST_CASE("cuda device (driver double): its own CUBIN, an older architecture's PTX, and a CUBIN it cannot run refused by name") {
  auto device = hone::make_cuda_device(fake_driver(), 0);
  CHECK(device->info().arch == "sm_90");
  CHECK(device->info().copy_bandwidth_gbs == doctest::Approx(2000).epsilon(1e-3));
  CHECK(device->info().peak_bandwidth_gbs == doctest::Approx(3352.3).epsilon(1e-3));
  CHECK_NOTHROW(device->load(hone::test::scale_kernel_for("sm_90")));
  hone::KernelImage older = hone::test::scale_kernel_for("sm_80");
  CHECK_NOTHROW(device->load(older));  // its PTX, JIT-compiled
  hone::KernelImage newer = hone::test::scale_kernel_for("sm_100");
  newer.ptx.clear();
  CHECK_THROWS_WITH(device->load(newer), doctest::Contains("kernel 'scale' has a CUBIN for sm_100, none of which runs on "
                                                           "hone fake GPU (test driver) (sm_90); compile it with --arch sm_90"));
  hone::KernelImage misnamed = hone::test::scale_kernel_for("sm_90");
  misnamed.entry = "scale_v2";
  CHECK_THROWS_WITH(device->load(misnamed), doctest::Contains("cuModuleGetFunction('scale_v2'): CUDA_ERROR_NOT_FOUND"));
  CHECK_FALSE(device->lost());
}

TEST_CASE("cuda device (driver double): buffers go in and out, and a launch out of range is refused before the driver") {
  auto device = hone::make_cuda_device(fake_driver(), 0);
  auto k = device->load(hone::test::scale_kernel_for("sm_90"));
  std::vector<float> in(1000), out(1000);
  for (int i = 0; i < 1000; ++i) in[i] = static_cast<float>(i);
  hone::DeviceBuffer buf(*device, in.size() * sizeof(float));
  device->upload(buf.get(), in.data(), in.size() * sizeof(float));
  void* ptr = buf.get();
  float f = 3;
  int n = 1000;
  void* args[] = {&ptr, &f, &n};
  hone::LaunchDims dims;
  dims.grid = {4, 1, 1};
  dims.block = {256, 1, 1};
  device->launch(*k, dims, args);
  device->download(out.data(), buf.get(), out.size() * sizeof(float));
  CHECK(out == in);  // the double runs no kernel code: what went in comes out
  dims.block = {2048, 1, 1};
  CHECK_THROWS_WITH(device->launch(*k, dims, args), doctest::Contains("block (2048, 1, 1): out of range"));
  CHECK_FALSE(device->lost());
}

TEST_CASE("cuda device (driver double): dynamic shared memory past 48 KiB with the static arrays is asked for, past the GPU's refused") {
  auto device = hone::make_cuda_device(fake_driver(), 0);
  std::unique_ptr<hone::LoadedKernel> k;
  {
    hone::test::ScopedEnv static_smem("HONE_FAKE_CUDA_STATIC_SMEM", "16384");  // read as the function is found
    k = device->load(hone::test::scale_kernel_for("sm_90"));
  }
  hone::DeviceBuffer buf(*device, 4096);
  void* ptr = buf.get();
  float f = 1;
  int n = 1024;
  void* args[] = {&ptr, &f, &n};
  hone::LaunchDims dims;
  dims.grid = {4, 1, 1};
  dims.block = {256, 1, 1};
  // 16 KiB static and 40 KiB dynamic: over the default 48 KiB, so the function must be allowed more.
  dims.smem = 40 * 1024;
  CHECK_NOTHROW(device->launch(*k, dims, args));
  dims.smem = 220 * 1024;  // with the static 16 KiB, past the GPU's 227 KiB
  CHECK_THROWS_WITH(device->launch(*k, dims, args),
                    doctest::Contains("cuFuncSetAttribute('scale', MAX_DYNAMIC_SHARED_SIZE_BYTES, 225280): CUDA_ERROR_INVALID_VALUE"));
  CHECK_FALSE(device->lost());
}

TEST_CASE("cuda device (driver double): a launch the driver refuses while a batch is recorded leaves the device usable") {
  auto device = hone::make_cuda_device(fake_driver(), 0);
  auto k = device->load(hone::test::scale_kernel_for("sm_90"));
  hone::DeviceBuffer buf(*device, 4096);
  void* ptr = buf.get();
  float f = 1;
  int n = 1024;
  void* args[] = {&ptr, &f, &n};
  hone::LaunchDims dims;
  dims.grid = {1, 70000, 1};  // past the driver's 65535 in y
  dims.block = {32, 1, 1};
  CHECK_THROWS_WITH(device->timed_batch(*k, dims, {args}, 10), doctest::Contains("cuLaunchKernel('scale', grid (1, 70000, 1)"));
  CHECK_FALSE(device->lost());  // no probe inside the capture, which would have broken it
  dims.grid = {4, 1, 1};
  CHECK(device->timed_batch(*k, dims, {args}, 10) == doctest::Approx(0.005).epsilon(1e-3));
  CHECK(device->timed_launch(*k, dims, args) == doctest::Approx(0.005).epsilon(1e-3));
}
