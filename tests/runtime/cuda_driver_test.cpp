// The driver table without a GPU: a missing library, a library that is no driver, and the
// toolkit's stub libcuda, which exports every function and answers each call with
// CUDA_ERROR_STUB_LIBRARY, so the names hone resolves and its error path are checked for real.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/input_error.hpp"
#include "runtime/cuda_driver.hpp"
#include "runtime/device_select.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace {

std::filesystem::path stub_libcuda() {
  const std::filesystem::path root = std::filesystem::path(hone::cuda_include_dir()).parent_path();
  for (const char* dir : {"lib64/stubs", "lib/stubs", "targets/x86_64-linux/lib/stubs"})
    if (std::filesystem::exists(root / dir / "libcuda.so")) return root / dir / "libcuda.so";
  return {};
}

}  // namespace

TEST_CASE("cuda driver: a missing library is no driver, said in one line naming it") {
  try {
    hone::load_cuda_driver("libhone-no-such-driver.so.1");
    FAIL("loaded a library that does not exist");
  } catch (const hone::CudaUnavailable& e) {
    const std::string what = e.what();
    CHECK(what.find("no CUDA driver (libhone-no-such-driver.so.1 not found") == 0);
    CHECK(what.find('\n') == std::string::npos);
  }
}

TEST_CASE("cuda driver: a library without the driver's functions is refused by the first one missing") {
  CHECK_THROWS_WITH_AS(hone::load_cuda_driver("libz.so.1"), doctest::Contains("libz.so.1 is not a usable CUDA driver: it lacks cuInit"),
                       hone::CudaUnavailable);
}

TEST_CASE("cuda driver: every function resolves from the toolkit's stub libcuda, whose cuInit fails by name") {
  const auto stub = stub_libcuda();
  if (stub.empty()) {
    MESSAGE("skipped: no stub libcuda.so under the CUDA toolkit at " << hone::cuda_include_dir() << "/..");
    return;
  }
  hone::CudaDriver d = hone::load_cuda_driver(stub.string());
  CHECK(reinterpret_cast<void*>(d.cuInit) != nullptr);
  CHECK(reinterpret_cast<void*>(d.cuMemAlloc) != nullptr);         // cuMemAlloc_v2
  CHECK(reinterpret_cast<void*>(d.cuEventElapsedTime) != nullptr); // cuEventElapsedTime_v2
  CHECK(reinterpret_cast<void*>(d.cuGraphInstantiate) != nullptr); // cuGraphInstantiateWithFlags
  CHECK(reinterpret_cast<void*>(d.cuStreamBeginCapture) != nullptr);
  const CUresult rc = d.cuInit(0);
  REQUIRE(rc == CUDA_ERROR_STUB_LIBRARY);
  CHECK(hone::cuda_error_text(d, rc).find("CUDA_ERROR_STUB_LIBRARY") == 0);
  try {
    hone::cuda_check(d, rc, "cuInit");
    FAIL("cuda_check let an error through");
  } catch (const hone::CudaError& e) {
    CHECK(std::string(e.what()).find("cuInit: CUDA_ERROR_STUB_LIBRARY") == 0);
    CHECK(e.code() == CUDA_ERROR_STUB_LIBRARY);
  }
  CHECK_NOTHROW(hone::cuda_check(d, CUDA_SUCCESS, "cuInit"));
}

TEST_CASE("cuda driver: the errors that leave a context unusable are sticky, the others are not") {
  CHECK(hone::cuda_error_is_sticky(CUDA_ERROR_ILLEGAL_ADDRESS));
  CHECK(hone::cuda_error_is_sticky(CUDA_ERROR_LAUNCH_TIMEOUT));
  CHECK(hone::cuda_error_is_sticky(CUDA_ERROR_ASSERT));
  CHECK(hone::cuda_error_is_sticky(CUDA_ERROR_CONTAINED));  // Hopper's error containment
  CHECK(hone::cuda_error_is_sticky(CUDA_ERROR_MPS_CLIENT_TERMINATED));
  CHECK_FALSE(hone::cuda_error_is_sticky(CUDA_ERROR_INVALID_VALUE));
  CHECK_FALSE(hone::cuda_error_is_sticky(CUDA_ERROR_OUT_OF_MEMORY));
  CHECK_FALSE(hone::cuda_error_is_sticky(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
}

TEST_CASE("device choice: auto takes cuda only with a driver and a GPU, else emu with the reason in one line") {
  const std::string why = hone::cuda_unavailable_reason();
  const hone::DeviceChoice automatic = hone::choose_device("auto");
  if (why.empty()) {
    MESSAGE("this machine has a GPU: auto picks cuda");
    CHECK(automatic.kind == "cuda");
    CHECK(automatic.note.empty());
    CHECK(hone::choose_device("cuda").kind == "cuda");
    return;
  }
  CHECK(automatic.kind == "emu");
  CHECK(automatic.note == why + ": running on emu (CPU)");
  CHECK(automatic.note.find('\n') == std::string::npos);
  CHECK_THROWS_WITH_AS(hone::choose_device("cuda"), ("--device cuda: " + why + "; use --device emu").c_str(), hone::InputError);
  CHECK_THROWS_AS(hone::open_device("cuda", "sm_90"), std::runtime_error);
}

TEST_CASE("device choice: emu and none are always there, and an unknown name is bad input") {
  CHECK(hone::choose_device("emu").kind == "emu");
  CHECK(hone::choose_device("none").kind == "none");
  CHECK_THROWS_WITH_AS(hone::choose_device("tpu"), "--device 'tpu': expected auto, emu, cuda or none", hone::InputError);
}
