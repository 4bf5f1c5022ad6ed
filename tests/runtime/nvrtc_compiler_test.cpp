#include <doctest/doctest.h>

#include <regex>

#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas.hpp"

using namespace hone;

namespace {

const char* kSaxpy = R"(
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

}  // namespace

TEST_CASE("nvrtc: compiles to PTX and CUBIN with resource usage") {
  NvrtcResult r = nvrtc_compile({kSaxpy, "saxpy.cu", "sm_90", {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  CHECK(r.ptx.find(".entry saxpy") != std::string::npos);
  CHECK(r.cubin.size() > 100);
  CHECK(r.cubin.compare(0, 4, "\x7f" "ELF") == 0);
  REQUIRE(r.usage.count("saxpy"));
  CHECK(r.usage["saxpy"].registers > 0);
  CHECK(r.usage["saxpy"].spill_stores == 0);
}

TEST_CASE("nvrtc: a compute_XX target gives PTX only") {
  NvrtcResult r = nvrtc_compile({kSaxpy, "saxpy.cu", "compute_90", {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  CHECK(!r.ptx.empty());
  CHECK(r.cubin.empty());
}

TEST_CASE("nvrtc: a front-end error comes back with its message") {
  NvrtcResult r = nvrtc_compile({"extern \"C\" __global__ void k(int* p) { p[0] = undefined_name; }", "bad.cu", "sm_90", {}});
  CHECK_FALSE(r.ok);
  CHECK(r.log.find("undefined_name") != std::string::npos);
}

TEST_CASE("nvrtc: a ptxas error comes back with its message despite -Xptxas=-v") {
  // 512 KB of static shared memory compiles in the front end and fails in ptxas.
  const char* src = R"(extern "C" __global__ void big(float* o) {
    __shared__ float s[131072]; s[threadIdx.x] = 1.f; __syncthreads(); o[threadIdx.x] = s[threadIdx.x ^ 1]; })";
  NvrtcResult r = nvrtc_compile({src, "big.cu", "sm_90", {}});
  CHECK_FALSE(r.ok);
  CHECK_MESSAGE(r.log.find("too much shared data") != std::string::npos, r.log);
}

TEST_CASE("nvrtc: an unsupported architecture is refused by name") {
  CHECK_THROWS_WITH_AS(nvrtc_compile({kSaxpy, "saxpy.cu", "sm_20", {}}), doctest::Contains("cannot target sm_20"),
                       std::invalid_argument);
  CHECK_THROWS_AS(arch_number("gfx90a"), std::invalid_argument);
  CHECK(arch_number("sm_90a") == 90);
}

TEST_CASE("nvrtc: registers, stack and spills match what the ptxas binary reports for the same PTX") {
  // A kernel with enough live state to make register counts non-trivial, and a local array that
  // is indexed dynamically so it lands on the stack.
  const char* src = R"(extern "C" __global__ void heavy(float* o, const float* x, int n, int k) {
    float acc[16]; float local[32];
    for (int i = 0; i < 16; ++i) acc[i] = x[threadIdx.x + i * 32];
    for (int i = 0; i < 32; ++i) local[i] = x[(threadIdx.x * 7 + i) % n];
    for (int j = 0; j < n; ++j) for (int i = 0; i < 16; ++i) acc[i] = acc[i] * x[j] + local[(j + i + k) & 31];
    float s = 0; for (int i = 0; i < 16; ++i) s += acc[i];
    o[blockIdx.x * blockDim.x + threadIdx.x] = s; })";
  NvrtcResult r = nvrtc_compile({src, "heavy.cu", "sm_90", {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  const std::string report = test::ptxas_report(r.ptx, "sm_90");
  std::smatch m;
  REQUIRE_MESSAGE(std::regex_search(report, m, std::regex(R"(Used (\d+) registers)")), report);
  CHECK(r.usage["heavy"].registers == std::stoi(m[1]));
  REQUIRE(std::regex_search(report, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)")));
  CHECK(r.usage["heavy"].stack_bytes == std::stoi(m[1]));
  CHECK(r.usage["heavy"].stack_bytes > 0);
  CHECK(r.usage["heavy"].spill_stores == std::stoi(m[2]));
  CHECK(r.usage["heavy"].spill_loads == std::stoi(m[3]));
}

TEST_CASE("nvrtc: a successful compile whose ptxas report came back empty is compiled again, a few times at most") {
  auto result = [](bool ok, bool reported) {
    NvrtcResult r;
    r.ok = ok;
    if (reported) r.usage["k"] = ResourceUsage{};
    return r;
  };
  int calls = 0;
  NvrtcResult second = until_reported([&] { return result(true, ++calls >= 2); }, 3);
  CHECK(calls == 2);
  CHECK(second.usage.count("k") == 1);

  calls = 0;
  NvrtcResult never = until_reported([&] { return ++calls, result(true, false); }, 3);
  CHECK(calls == 3);
  CHECK(never.ok);
  CHECK(never.usage.empty());

  calls = 0;
  NvrtcResult failed = until_reported([&] { return ++calls, result(false, false); }, 3);
  CHECK(calls == 1);  // a failed compile has no report to lose
  CHECK_FALSE(failed.ok);
}

TEST_CASE("nvrtc: a source without a kernel compiles, with no entry in the report") {
  NvrtcResult r = nvrtc_compile({"__device__ int twice(int v) { return 2 * v; }\n", "helper.cu", "sm_90", {}});
  CHECK(r.ok);
  CHECK(r.usage.empty());
}
