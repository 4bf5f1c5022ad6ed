#pragma once
// The few CUDA driver calls the loader makes, through dlopen("libcuda.so.1"): a program that
// includes the loader runs (and finds kernels) on a machine without a driver, and only loading
// a module or launching needs one. The types are declared here, not taken from cuda.h, so the
// loader builds without the CUDA toolkit; they are the driver's ABI (handles are pointers,
// CUresult and CUdevice are int).
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "hone/kernel_cache/error.hpp"

namespace hone::kernel_cache {

class CudaDriver {
 public:
  using Result = int;        // CUresult; 0 is CUDA_SUCCESS
  using Device = int;        // CUdevice
  using Context = void*;     // CUcontext
  using Module = void*;      // CUmodule
  using Function = void*;    // CUfunction
  using Stream = void*;      // CUstream, or a cudaStream_t: the runtime's streams are the driver's

  /// The process's driver, loaded on first use; throws KernelCacheError when there is none.
  static CudaDriver& get() {
    static std::once_flag once;
    static CudaDriver* driver = nullptr;
    static std::string error;
    std::call_once(once, [] {
      try {
        driver = new CudaDriver();  // never freed: the driver outlives every module loaded through it
      } catch (const KernelCacheError& e) {
        error = e.what();
      }
    });
    if (!driver) throw KernelCacheError(error);
    return *driver;
  }

  /// Throws KernelCacheError "what: <driver's error name and text>" unless r is success.
  void check(Result r, const std::string& what) const {
    if (r == 0) return;
    const char* name = nullptr;
    const char* text = nullptr;
    if (get_error_name_) get_error_name_(r, &name);
    if (get_error_string_) get_error_string_(r, &text);
    throw KernelCacheError(what + ": " + (name ? name : "CUDA error " + std::to_string(r)) + (text ? std::string(" (") + text + ")" : ""));
  }

  /// The current context, making device 0's primary context current when the thread has none
  /// (what the CUDA runtime, and so PyTorch, does on first use).
  Context current_context() const {
    Context ctx = nullptr;
    check(ctx_get_current_(&ctx), "cuCtxGetCurrent");
    if (ctx) return ctx;
    Device dev = 0;
    check(device_get_(&dev, 0), "cuDeviceGet(0)");
    check(primary_ctx_retain_(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(ctx_set_current_(ctx), "cuCtxSetCurrent");
    return ctx;
  }

  /// "sm_90" for the device of the current context.
  std::string current_arch() const {
    current_context();
    Device dev = 0;
    check(ctx_get_device_(&dev), "cuCtxGetDevice");
    int major = 0, minor = 0;
    check(device_get_attribute_(&major, 75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */, dev), "cuDeviceGetAttribute");
    check(device_get_attribute_(&minor, 76 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */, dev), "cuDeviceGetAttribute");
    return "sm_" + std::to_string(major * 10 + minor);
  }

  /// Loads a CUBIN or PTX image (the driver JIT-compiles PTX) in the current context; `what`
  /// names it in errors, with the JIT's log.
  Module load_module(const std::string& image, const std::string& what) const {
    current_context();
    Module m = nullptr;
    char log[4096] = {0};
    int options[] = {5 /* CU_JIT_ERROR_LOG_BUFFER */, 6 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */};
    void* values[] = {log, reinterpret_cast<void*>(static_cast<std::size_t>(sizeof log))};
    const Result r = module_load_data_ex_(&m, image.c_str(), 2, options, values);
    if (r != 0) {
      try {
        check(r, "loading " + what);
      } catch (const KernelCacheError& e) {
        throw KernelCacheError(std::string(e.what()) + (log[0] ? std::string(": ") + log : ""));
      }
    }
    return m;
  }

  Function function(Module m, const std::string& entry) const {
    Function f = nullptr;
    check(module_get_function_(&f, m, entry.c_str()), "cuModuleGetFunction(" + entry + ")");
    return f;
  }

  void launch(Function f, const long long grid[3], const long long block[3], long long smem, Stream stream, void** params,
              const std::string& what) const {
    check(launch_kernel_(f, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
                         static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2]),
                         static_cast<unsigned>(smem), stream, params, nullptr),
          "launching " + what);
  }

 private:
  template <class F>
  void bind(F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(lib_, name));
    if (!fn) throw KernelCacheError(std::string("libcuda.so.1 lacks ") + name + " (driver too old?)");
  }

  CudaDriver() {
    lib_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) throw KernelCacheError(std::string("no CUDA driver: cannot load libcuda.so.1 (") + dlerror() + ")");
    get_error_name_ = reinterpret_cast<Result (*)(Result, const char**)>(dlsym(lib_, "cuGetErrorName"));
    get_error_string_ = reinterpret_cast<Result (*)(Result, const char**)>(dlsym(lib_, "cuGetErrorString"));
    bind(init_, "cuInit");
    bind(ctx_get_current_, "cuCtxGetCurrent");
    bind(ctx_set_current_, "cuCtxSetCurrent");
    bind(ctx_get_device_, "cuCtxGetDevice");
    bind(device_get_, "cuDeviceGet");
    bind(device_get_attribute_, "cuDeviceGetAttribute");
    bind(primary_ctx_retain_, "cuDevicePrimaryCtxRetain");
    bind(module_load_data_ex_, "cuModuleLoadDataEx");
    bind(module_get_function_, "cuModuleGetFunction");
    bind(launch_kernel_, "cuLaunchKernel");
    check(init_(0), "cuInit");
  }

  void* lib_ = nullptr;
  Result (*get_error_name_)(Result, const char**) = nullptr;
  Result (*get_error_string_)(Result, const char**) = nullptr;
  Result (*init_)(unsigned) = nullptr;
  Result (*ctx_get_current_)(Context*) = nullptr;
  Result (*ctx_set_current_)(Context) = nullptr;
  Result (*ctx_get_device_)(Device*) = nullptr;
  Result (*device_get_)(Device*, int) = nullptr;
  Result (*device_get_attribute_)(int*, int, Device) = nullptr;
  Result (*primary_ctx_retain_)(Context*, Device) = nullptr;
  Result (*module_load_data_ex_)(Module*, const void*, unsigned, int*, void**) = nullptr;
  Result (*module_get_function_)(Function*, Module, const char*) = nullptr;
  Result (*launch_kernel_)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Stream, void**,
                           void**) = nullptr;
};

}  // namespace hone::kernel_cache
