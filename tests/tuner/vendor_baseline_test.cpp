// A task's baselines: cuBLAS beside the reference for gemv on a cuda device (through the library
// double here), built without a compiler and passing the static checks as a call with no kernel
// resources; nowhere else; and a library that cannot load leaves the task with the reference and
// a line saying why.
#include <doctest/doctest.h>

#include <stdexcept>

#include "core/paths.hpp"
#include "runtime/cublas_gemv.hpp"
#include "runtime/kernel_build.hpp"
#include "support/scoped_env.hpp"
#include "tuner/baseline.hpp"
#include "validator/static_stage.hpp"

using namespace hone;

namespace {

DeviceInfo device_of(const std::string& kind) {
  DeviceInfo d;
  d.kind = kind;
  d.name = "test";
  d.arch = "sm_90";
  return d;
}

}  // namespace

TEST_CASE("baselines: gemv on a cuda device has cuBLAS beside the reference, built and checked as a call, not a kernel") {
  // Read when the process first loads cuBLAS: nothing in this test program loads it before.
  test::ScopedEnv library{"HONE_LIBCUBLAS", HONE_FAKE_LIBCUBLAS};
  const OpSpec gemv = load_op(templates_root(), "gemv");
  std::vector<std::string> left_out;
  const std::vector<Baseline> b = task_baselines(gemv, device_of("cuda"), &left_out);
  CHECK(left_out.empty());
  REQUIRE(b.size() == 2);
  CHECK(b[0].origin == "reference");
  CHECK(b[1].origin == "vendor:cublas");
  CHECK(b[1].candidate.origin == "vendor:cublas");
  CHECK(b[1].candidate.entry == kCublasGemvEntry);
  CHECK(b[1].candidate.source.empty());

  const Bindings shape = {{"M", 8}, {"N", 4096}, {"K", 4096}};
  const KernelBuild build = build_kernel(static_build_request(gemv, b[1].candidate, "sm_90", "cuda"));
  CHECK(build.ok());
  CHECK(build.image.entry == kCublasGemvEntry);
  CHECK(build.image.ptx.empty());
  CHECK(build.image.cubin.empty());
  CHECK(static_verdict(gemv, b[1].candidate, build, shape).pass);
}

TEST_CASE("baselines: no vendor library on emu or none, nor for an op without one") {
  const OpSpec gemv = load_op(templates_root(), "gemv");
  const OpSpec rmsnorm = load_op(templates_root(), "rmsnorm");
  CHECK(task_baselines(gemv, device_of("emu")).size() == 1);
  CHECK(task_baselines(gemv, device_of("none")).size() == 1);
  CHECK(task_baselines(rmsnorm, device_of("cuda")).size() == 1);
  CHECK(task_baselines(rmsnorm, device_of("emu")).front().origin == "reference");
}

TEST_CASE("baselines: a vendor library that cannot load leaves the task with its other baselines and says why") {
  register_vendor_baseline([](const OpSpec& op, const DeviceInfo&) -> std::optional<Baseline> {
    if (op.name != "silu_mul") return std::nullopt;
    throw std::runtime_error("libvendor.so: cannot open shared object file");
  });
  const OpSpec silu_mul = load_op(templates_root(), "silu_mul");
  std::vector<std::string> left_out;
  const auto b = task_baselines(silu_mul, device_of("cuda"), &left_out);
  REQUIRE(b.size() == 1);
  CHECK(b.front().origin == "reference");
  REQUIRE(left_out.size() == 1);
  CHECK(left_out.front() == "vendor baseline left out: libvendor.so: cannot open shared object file");
}
