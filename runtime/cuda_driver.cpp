#include "runtime/cuda_driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace hone {

namespace {

#define HONE_STRINGIFY_NAME(x) #x
// Expands the cuda.h macro first: cuMemAlloc becomes "cuMemAlloc_v2".
#define HONE_EXPORTED_NAME(x) HONE_STRINGIFY_NAME(x)

}  // namespace

CudaDriver load_cuda_driver(const std::string& library) {
  CudaDriver d;
  d.library_path = library;
  d.library = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d.library) {
    const std::string why = ::dlerror();
    if (why.find("No such file or directory") != std::string::npos) throw CudaUnavailable("no CUDA driver (" + library + " not found)");
    throw CudaUnavailable("no usable CUDA driver (" + library + " cannot be loaded: " + why + ")");
  }
#define HONE_CUDA_DRIVER_RESOLVE(name)                                                                        \
  d.name = reinterpret_cast<decltype(d.name)>(::dlsym(d.library, HONE_EXPORTED_NAME(name)));                  \
  if (!d.name) {                                                                                              \
    ::dlclose(d.library);                                                                                     \
    throw CudaUnavailable(library + " is not a usable CUDA driver: it lacks " HONE_EXPORTED_NAME(name)        \
                          " (a driver older than CUDA 12.8?)");                                              \
  }
  HONE_CUDA_DRIVER_FUNCTIONS(HONE_CUDA_DRIVER_RESOLVE)
#undef HONE_CUDA_DRIVER_RESOLVE
  return d;
}

CudaDriver init_cuda_driver(const std::string& library) {
  CudaDriver d = load_cuda_driver(library);
  const CUresult rc = d.cuInit(0);
  if (rc != CUDA_SUCCESS)
    throw CudaUnavailable("the CUDA driver (" + d.library_path + ") did not initialise: cuInit: " + cuda_error_text(d, rc));
  return d;
}

const CudaDriver& cuda_driver() {
  // Loaded once: a process has one driver, and cuInit's answer does not change.
  static std::once_flag once;
  static std::unique_ptr<CudaDriver> driver;
  static std::string problem;
  std::call_once(once, [] {
    const char* override_path = std::getenv("HONE_LIBCUDA");
    try {
      driver = std::make_unique<CudaDriver>(init_cuda_driver(override_path && *override_path ? override_path : "libcuda.so.1"));
    } catch (const CudaUnavailable& e) {
      problem = e.what();
    }
  });
  if (!driver) throw CudaUnavailable(problem);
  return *driver;
}

std::string cuda_error_text(const CudaDriver& driver, CUresult code) {
  const char* name = nullptr;
  const char* text = nullptr;
  // The stub library answers every call, these two included, with CUDA_ERROR_STUB_LIBRARY.
  if (driver.cuGetErrorName && driver.cuGetErrorName(code, &name) != CUDA_SUCCESS) name = nullptr;
  if (driver.cuGetErrorString && driver.cuGetErrorString(code, &text) != CUDA_SUCCESS) text = nullptr;
  std::string out = name ? name : (code == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY" : "CUresult " + std::to_string(code));
  if (text) out += std::string(" (") + text + ")";
  else if (code == CUDA_ERROR_STUB_LIBRARY) out += " (the toolkit's stub libcuda, not a driver)";
  return out;
}

void cuda_check(const CudaDriver& driver, CUresult code, const char* call) {
  if (code != CUDA_SUCCESS) throw CudaError(std::string(call) + ": " + cuda_error_text(driver, code), code);
}

bool cuda_error_is_sticky(CUresult code) {
  switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return true;
    default:
      return false;
  }
}

}  // namespace hone
