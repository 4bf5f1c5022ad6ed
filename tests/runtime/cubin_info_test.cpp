// CUBIN metadata read from NVRTC's own output for the architectures hone tunes for: the
// architecture in the ELF flags and the kernels in the symbol table, with no driver and no GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "runtime/cubin_info.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace {

const char* kTwoKernels = R"(
extern "C" __device__ float twice(float v) { return 2 * v; }
extern "C" __global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = twice(x[i]); }
extern "C" __global__ void fill(float* x, float v) { x[threadIdx.x] = v; }
)";

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("cubin info: NVRTC's CUBIN for sm_80, sm_90 and sm_100 names its architecture and its kernels") {
  for (int arch : {80, 90, 100}) {
    CAPTURE(arch);
    const hone::NvrtcResult r = hone::nvrtc_compile({kTwoKernels, "two.cu", "sm_" + std::to_string(arch), {}});
    REQUIRE_MESSAGE(r.ok, r.log);
    const hone::CubinInfo info = hone::read_cubin_info(r.cubin);
    CHECK(info.arch == arch);
    CHECK(has(info.entries, "scale"));
    CHECK(has(info.entries, "fill"));
    CHECK_FALSE(has(info.entries, "twice"));  // a device function, not a kernel
    CHECK(hone::ptx_target_arch(r.ptx) == arch);
  }
}

TEST_CASE("cubin info: PTX-only targets and the sm_90a variant") {
  const hone::NvrtcResult ptx_only = hone::nvrtc_compile({kTwoKernels, "two.cu", "compute_90", {}});
  REQUIRE_MESSAGE(ptx_only.ok, ptx_only.log);
  CHECK(ptx_only.cubin.empty());
  CHECK(hone::ptx_target_arch(ptx_only.ptx) == 90);
  const hone::NvrtcResult a = hone::nvrtc_compile({kTwoKernels, "two.cu", "sm_90a", {}});
  REQUIRE_MESSAGE(a.ok, a.log);
  CHECK(hone::read_cubin_info(a.cubin).arch == 90);
}

TEST_CASE("cubin info: what is not a CUBIN is refused with what is wrong") {
  CHECK_THROWS_WITH_AS(hone::read_cubin_info("hello"), "not a CUBIN: no ELF header", std::invalid_argument);
  std::ifstream self("/proc/self/exe", std::ios::binary);
  std::string host(std::istreambuf_iterator<char>(self), {});
  CHECK_THROWS_WITH_AS(hone::read_cubin_info(host), doctest::Contains("not CUDA (190)"), std::invalid_argument);
  const hone::NvrtcResult r = hone::nvrtc_compile({kTwoKernels, "two.cu", "sm_90", {}});
  REQUIRE(r.ok);
  CHECK_THROWS_WITH_AS(hone::read_cubin_info(r.cubin.substr(0, 80)), doctest::Contains("truncated"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(hone::ptx_target_arch("// no target\n.version 9.0\n"), "PTX without a '.target sm_XX' line",
                       std::invalid_argument);
}

TEST_CASE("cuda device arithmetic: compile target, attribute bandwidth and the flops bound, without a GPU") {
  const std::vector<std::string> nvrtc = {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120"};
  CHECK(hone::compile_arch_for("sm_90", nvrtc) == "sm_90");
  CHECK(hone::compile_arch_for("sm_89", nvrtc) == "sm_80");    // the PTX of the newest below, JIT-compiled
  CHECK(hone::compile_arch_for("sm_130", nvrtc) == "sm_120");  // newer than this NVRTC knows
  CHECK_THROWS_AS(hone::compile_arch_for("sm_70", nvrtc), std::invalid_argument);
  // H100 SXM: 2619 MHz HBM3 on a 5120-bit bus is 3352 GB/s.
  CHECK(hone::theoretical_bandwidth_gbs(2619000, 5120) == doctest::Approx(3352.3).epsilon(1e-3));
  hone::CudaDeviceProperties h100;
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.clock_khz = 1980000;
  // Above the H100's dense fp8 tensor rate (about 1979 TFLOP/s at 1830 MHz boost): a bound, not a claim.
  CHECK(hone::peak_gflops_bound(h100) == doctest::Approx(132.0 * 8192 * 1.98e9 * 1e-9));
  CHECK(hone::peak_gflops_bound(h100) > 1.979e6);
  hone::CudaDeviceProperties unknown = h100;
  unknown.cc_major = 8;
  unknown.cc_minor = 6;
  CHECK(hone::peak_gflops_bound(unknown) == 0);
}
