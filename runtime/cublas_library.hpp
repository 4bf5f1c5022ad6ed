#pragma once
// cuBLAS, loaded at run time with dlopen like the driver (runtime/cuda_driver.hpp): hone links
// nothing of it at build time, and a machine without it simply has no vendor baseline. Only the
// four functions hone calls are resolved; cublas_api.h gives their types, nothing more.
#include <cublas_api.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace hone {

#define HONE_CUBLAS_FUNCTIONS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasGemmEx) X(cublasDestroy_v2)

/// The cuBLAS functions hone calls, resolved from one library.
struct CublasLibrary {
  void* library = nullptr;
  std::string library_path;
  // Spelled out: C++ sees cublasGemmEx overloaded (an older compute-type signature), so decltype
  // cannot name the exported C function.
  cublasStatus_t (*cublasCreate_v2)(cublasHandle_t*) = nullptr;
  cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t, cudaStream_t) = nullptr;
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                 const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                 cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*cublasDestroy_v2)(cublasHandle_t) = nullptr;
};

/// No usable cuBLAS: the library is missing or lacks a function. The message is the one line a
/// job prints once when it goes without the vendor baseline.
class CublasUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A cuBLAS call that returned an error status: the call and the status's name.
class CublasError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Opens `library` (a loader name or a path) and resolves every function; throws
/// CublasUnavailable naming the library and the first missing symbol.
CublasLibrary load_cublas(const std::string& library);

/// The names tried in order when $HONE_LIBCUBLAS is unset: the sonames of the CUDA releases hone
/// supports, newest first.
std::vector<std::string> cublas_library_names();

/// The process's cuBLAS, loaded on first use ($HONE_LIBCUBLAS overrides the library; tests point it
/// at their double); later calls return it or throw the same CublasUnavailable again.
const CublasLibrary& cublas_library();

/// "CUBLAS_STATUS_INVALID_VALUE"; the number for a status hone does not know.
std::string cublas_status_name(cublasStatus_t status);

/// Throws CublasError "<call>: <status name>" unless `status` is CUBLAS_STATUS_SUCCESS.
void cublas_check(cublasStatus_t status, const char* call);

}  // namespace hone
