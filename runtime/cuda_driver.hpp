#pragma once
// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so that hone builds and
// runs on machines without a driver. cuda.h gives the types and signatures only: nothing links
// against libcuda.
//
// Every function is looked up by the exported, versioned name its cuda.h macro stands for
// (cuMemAlloc is cuMemAlloc_v2), so each pointer has exactly the signature of the symbol behind it.
#include <cuda.h>

#include <stdexcept>
#include <string>

namespace hone {

#define HONE_CUDA_DRIVER_FUNCTIONS(X)                                                                              \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet)         \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                        \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadDataEx) X(cuModuleUnload)      \
  X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuMemAlloc) X(cuMemFree)   \
  X(cuMemGetInfo) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamDestroy)     \
  X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)             \
  X(cuEventDestroy) X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch)           \
  X(cuGraphDestroy) X(cuGraphExecDestroy)

/// The driver's functions, resolved from one library. Plain pointers: call them, then check().
struct CudaDriver {
  void* library = nullptr;
  std::string library_path;
#define HONE_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  HONE_CUDA_DRIVER_FUNCTIONS(HONE_CUDA_DRIVER_MEMBER)
#undef HONE_CUDA_DRIVER_MEMBER
};

/// A failed driver call: what was called, the CUresult's name and the driver's description.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& what, CUresult code) : std::runtime_error(what), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

/// No usable driver: the library is missing, is not a CUDA driver, or cuInit failed. The message
/// is the one line a user is shown.
class CudaUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Opens `library` (a name for the loader's search, or a path) and resolves every function.
/// Throws CudaUnavailable naming the library and the first missing symbol. Does not call cuInit.
CudaDriver load_cuda_driver(const std::string& library = "libcuda.so.1");

/// load_cuda_driver, then cuInit. Throws CudaUnavailable naming the library and cuInit's error.
CudaDriver init_cuda_driver(const std::string& library);

/// The process's driver, loaded and initialised (cuInit) on first use; later calls return it or
/// throw the same CudaUnavailable again. $HONE_LIBCUDA overrides the library (tests use the
/// toolkit's stub library).
const CudaDriver& cuda_driver();

/// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"; the number where the
/// driver cannot name it.
std::string cuda_error_text(const CudaDriver& driver, CUresult code);

/// Throws CudaError "<call>: <cuda_error_text>" unless `code` is CUDA_SUCCESS.
void cuda_check(const CudaDriver& driver, CUresult code, const char* call);

/// Whether `code` leaves the context unusable: every later call in this process fails the same
/// way, so the process must end (a worker is replaced).
bool cuda_error_is_sticky(CUresult code);

}  // namespace hone
