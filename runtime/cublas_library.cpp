#include "runtime/cublas_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace hone {

CublasLibrary load_cublas(const std::string& library) {
  CublasLibrary c;
  c.library_path = library;
  c.library = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!c.library) {
    const std::string why = ::dlerror();
    if (why.find("No such file or directory") != std::string::npos) throw CublasUnavailable("no cuBLAS (" + library + " not found)");
    throw CublasUnavailable("no usable cuBLAS (" + library + " cannot be loaded: " + why + ")");
  }
#define HONE_CUBLAS_RESOLVE(name)                                                                  \
  c.name = reinterpret_cast<decltype(c.name)>(::dlsym(c.library, #name));                         \
  if (!c.name) {                                                                                   \
    ::dlclose(c.library);                                                                          \
    throw CublasUnavailable(library + " is not a usable cuBLAS: it lacks " #name);                \
  }
  HONE_CUBLAS_FUNCTIONS(HONE_CUBLAS_RESOLVE)
#undef HONE_CUBLAS_RESOLVE
  return c;
}

std::vector<std::string> cublas_library_names() { return {"libcublas.so.13", "libcublas.so.12"}; }

const CublasLibrary& cublas_library() {
  // Loaded once: what the loader finds does not change within a process.
  static std::once_flag once;
  static std::unique_ptr<CublasLibrary> loaded;
  static std::string problem;
  std::call_once(once, [] {
    const char* override_path = std::getenv("HONE_LIBCUBLAS");
    const std::vector<std::string> names =
        override_path && *override_path ? std::vector<std::string>{override_path} : cublas_library_names();
    for (const auto& name : names) {
      try {
        loaded = std::make_unique<CublasLibrary>(load_cublas(name));
        return;
      } catch (const CublasUnavailable& e) {
        // The first refusal is the one worth showing: it names the newest soname tried.
        if (problem.empty()) problem = e.what();
      }
    }
  });
  if (!loaded) throw CublasUnavailable(problem);
  return *loaded;
}

std::string cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "cublasStatus_t " + std::to_string(static_cast<int>(status));
}

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CublasError(std::string(call) + ": " + cublas_status_name(status));
}

}  // namespace hone
