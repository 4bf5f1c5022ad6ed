#include "runtime/cuda_device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/cubin_info.hpp"
#include "runtime/cublas_gemv.hpp"
#include "runtime/cublas_library.hpp"
#include "runtime/cuda_driver.hpp"

namespace hone {

namespace {

CUdeviceptr device_ptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

CudaDeviceProperties read_properties(const CudaDriver& d, int ordinal) {
  CudaDeviceProperties p;
  p.ordinal = ordinal;
  CUdevice dev;
  cuda_check(d, d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  char name[256] = {};
  cuda_check(d, d.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
  p.name = name;
  auto attribute = [&](CUdevice_attribute a, const char* what) {
    int v = 0;
    cuda_check(d, d.cuDeviceGetAttribute(&v, a, dev), what);
    return v;
  };
  p.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
  p.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
  p.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  p.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "cuDeviceGetAttribute(L2_CACHE_SIZE)");
  p.memory_clock_khz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "cuDeviceGetAttribute(MEMORY_CLOCK_RATE)");
  p.bus_width_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "cuDeviceGetAttribute(GLOBAL_MEMORY_BUS_WIDTH)");
  p.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "cuDeviceGetAttribute(CLOCK_RATE)");
  p.max_shared_per_block_optin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
  p.kernel_time_limit = attribute(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT, "cuDeviceGetAttribute(KERNEL_EXEC_TIMEOUT)") != 0;
  std::size_t total = 0;
  cuda_check(d, d.cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  p.memory_bytes = static_cast<double>(total);
  return p;
}

struct CudaKernel : LoadedKernel {
  CudaKernel(const CudaDriver& d, std::string e) : driver(d), entry(std::move(e)) {}
  ~CudaKernel() override {
    if (module) driver.cuModuleUnload(module);
  }
  const CudaDriver& driver;
  std::string entry;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  int static_smem = 0;       // the kernel's __shared__ arrays, bytes
  int dynamic_smem_set = 0;  // the largest dynamic shared memory this function was allowed so far
  std::unique_ptr<CublasGemv> cublas;  // set: the image is kCublasGemvEntry, a cuBLAS call, no module
};

class CudaDevice : public Device {
 public:
  CudaDevice(const CudaDriver& driver, int ordinal) : d_(driver) {
    int count = 0;
    check(d_.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (ordinal >= count)
      throw CudaUnavailable(count == 0 ? "the CUDA driver sees no GPU" : fmt::format("no GPU {} (the driver sees {})", ordinal, count));
    props_ = read_properties(d_, ordinal);
    check(d_.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    info_.kind = "cuda";
    info_.name = props_.name;
    info_.arch = props_.arch();
    info_.timer = "gpu";
    info_.l2_bytes = props_.l2_bytes;
    info_.replays_batches = true;
    info_.peak_gflops = peak_gflops_bound(props_);
    info_.peak_bandwidth_gbs = theoretical_bandwidth_gbs(props_.memory_clock_khz, props_.bus_width_bits);
    try {
      open();
    } catch (...) {
      // No destructor runs for a constructor that throws: a retained context would outlive the
      // attempt (and, in an exclusive compute mode, keep the worker off the GPU).
      close();
      throw;
    }
  }

  ~CudaDevice() override { close(); }

  const DeviceInfo& info() const override { return info_; }
  bool lost() const override { return lost_; }

  void* alloc(std::size_t bytes) override {
    CUdeviceptr p = 0;
    check(d_.cuMemAlloc(&p, std::max<std::size_t>(bytes, 1)), fmt::format("cuMemAlloc({} bytes)", bytes));
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
  }

  // Called from destructors, also while a fault unwinds: never throws.
  void release(void* ptr) override {
    if (ptr && !lost_) d_.cuMemFree(device_ptr(ptr));
  }

  void upload(void* dst, const void* src, std::size_t bytes) override {
    check(d_.cuMemcpyHtoDAsync(device_ptr(dst), src, bytes, stream_), "cuMemcpyHtoDAsync");
    check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize (after an upload)");
  }

  void download(void* dst, const void* src, std::size_t bytes) override {
    check(d_.cuMemcpyDtoHAsync(dst, device_ptr(src), bytes, stream_), "cuMemcpyDtoHAsync");
    check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize (after a download)");
  }

  std::unique_ptr<LoadedKernel> load(const KernelImage& image) override {
    auto k = std::make_unique<CudaKernel>(d_, image.entry);
    if (image.entry == kCublasGemvEntry) {
      // On the device's stream, so that it is timed, captured and ordered like a kernel launch.
      k->cublas = std::make_unique<CublasGemv>(cublas_library(), stream_);
      return k;
    }
    const int device_arch = props_.cc_major * 10 + props_.cc_minor;
    int cubin_arch = 0;
    if (!image.cubin.empty()) cubin_arch = read_cubin_info(image.cubin).arch;
    if (cubin_arch == device_arch) {
      check(d_.cuModuleLoadDataEx(&k->module, image.cubin.data(), 0, nullptr, nullptr),
            "cuModuleLoadDataEx (CUBIN of '" + image.entry + "')");
    } else if (!image.ptx.empty() && ptx_target_arch(image.ptx) <= device_arch) {
      load_ptx(*k, image);
    } else {
      std::string has = cubin_arch ? fmt::format("a CUBIN for sm_{}", cubin_arch) : "no CUBIN";
      if (!image.ptx.empty()) has += fmt::format(" and PTX for sm_{}", ptx_target_arch(image.ptx));
      throw std::runtime_error(fmt::format("kernel '{}' has {}, none of which runs on {} ({}); compile it with --arch {}", image.entry,
                                           has, props_.name, props_.arch(), props_.arch()));
    }
    check(d_.cuModuleGetFunction(&k->function, k->module, image.entry.c_str()), "cuModuleGetFunction('" + image.entry + "')");
    check(d_.cuFuncGetAttribute(&k->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function),
          "cuFuncGetAttribute('" + image.entry + "', SHARED_SIZE_BYTES)");
    return k;
  }

  void launch(LoadedKernel& kernel, const LaunchDims& dims, void** args) override {
    auto& k = static_cast<CudaKernel&>(kernel);
    enqueue(k, dims, args);
    check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize (after launching '" + k.entry + "')");
  }

  double timed_launch(LoadedKernel& kernel, const LaunchDims& dims, void** args, const BufferCopies& before) override {
    auto& k = static_cast<CudaKernel&>(kernel);
    copy(before);
    flush_l2();
    check(d_.cuEventRecord(start_, stream_), "cuEventRecord");
    enqueue(k, dims, args);
    check(d_.cuEventRecord(stop_, stream_), "cuEventRecord");
    return elapsed_ms(k.entry);
  }

  double timed_batch(LoadedKernel& kernel, const LaunchDims& dims, const std::vector<void**>& arg_sets, int launches,
                     const BufferCopies& before) override {
    if (launches <= 1 && arg_sets.size() == 1) return timed_launch(kernel, dims, arg_sets.front(), before);
    auto& k = static_cast<CudaKernel&>(kernel);
    GraphExec exec(d_);
    record_graph(k, dims, arg_sets, launches, exec);
    // The first replay uploads the graph to the device; the second is the one timed. The copies
    // come between them: the timed replay's launches find their buffers as a checked launch does,
    // not with what the first replay wrote.
    check(d_.cuGraphLaunch(exec.handle, stream_), "cuGraphLaunch");
    check(d_.cuStreamSynchronize(stream_), "cuStreamSynchronize (after replaying '" + k.entry + "')");
    copy(before);
    flush_l2();
    check(d_.cuEventRecord(start_, stream_), "cuEventRecord");
    check(d_.cuGraphLaunch(exec.handle, stream_), "cuGraphLaunch");
    check(d_.cuEventRecord(stop_, stream_), "cuEventRecord");
    return elapsed_ms(k.entry) / launches;
  }

 private:
  struct GraphExec {
    explicit GraphExec(const CudaDriver& d) : driver(d) {}
    ~GraphExec() {
      if (handle) driver.cuGraphExecDestroy(handle);
    }
    const CudaDriver& driver;
    CUgraphExec handle = nullptr;
  };

  void open() {
    // The primary context: the one the runtime API and serving engines share, so a kernel sees
    // the same defaults (limits, caches) here as it will in an engine.
    check(d_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(d_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    check(d_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check(d_.cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(d_.cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
    // Larger than L2 by a margin, so that writing it leaves nothing of a kernel's data there.
    flush_bytes_ = std::max<std::size_t>(static_cast<std::size_t>(2 * props_.l2_bytes), 8u << 20);
    check(d_.cuMemAlloc(&flush_, flush_bytes_), "cuMemAlloc (L2 flush buffer)");
    info_.copy_bandwidth_gbs = measure_copy_bandwidth();
  }

  // Called from the destructor and after a failed open: never throws.
  void close() {
    if (lost_) return;  // every call would fail the same way; the process is ending
    if (stream_) d_.cuStreamSynchronize(stream_);
    if (flush_) d_.cuMemFree(flush_);
    if (start_) d_.cuEventDestroy(start_);
    if (stop_) d_.cuEventDestroy(stop_);
    if (stream_) d_.cuStreamDestroy(stream_);
    if (context_) d_.cuDevicePrimaryCtxRelease(device_);
    flush_ = 0;
    start_ = stop_ = nullptr;
    stream_ = nullptr;
    context_ = nullptr;
  }

  void check(CUresult rc, const std::string& call) {
    if (rc == CUDA_SUCCESS) return;
    // A code not known to be sticky may still have left the context faulted (a newer driver's
    // code, CUDA_ERROR_UNKNOWN): a faulted context fails every call, a synchronisation too.
    // Not while capturing: there a synchronisation is refused, and would only break the capture.
    if (cuda_error_is_sticky(rc) || (context_ && !capturing_ && d_.cuCtxSynchronize() != CUDA_SUCCESS)) lost_ = true;
    throw CudaError(call + ": " + cuda_error_text(d_, rc), rc);
  }

  void load_ptx(CudaKernel& k, const KernelImage& image) {
    // The JIT's own words on failure, not only the error code.
    std::string log(16384, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
    const CUresult rc = d_.cuModuleLoadDataEx(&k.module, image.ptx.c_str(), 2, options, values);
    log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
    if (rc != CUDA_SUCCESS) check(rc, "cuModuleLoadDataEx (PTX of '" + image.entry + "', JIT)" + (log.empty() ? "" : ": " + log));
  }

  void enqueue(CudaKernel& k, const LaunchDims& dims, void** args) {
    if (k.cublas) {
      // gemv's arguments, in its signature's order; cuBLAS picks its own grid.
      k.cublas->run(*static_cast<int*>(args[3]), *static_cast<int*>(args[4]), *static_cast<int*>(args[5]),
                    *static_cast<void**>(args[0]), *static_cast<void**>(args[1]), *static_cast<void**>(args[2]));
      return;
    }
    for (int i = 0; i < 3; ++i)
      if (dims.grid[i] < 1 || dims.block[i] < 1 || dims.grid[i] > 0x7fffffff || dims.block[i] > 1024)
        throw std::runtime_error(fmt::format("launch of '{}' with grid ({}, {}, {}) and block ({}, {}, {}): out of range", k.entry,
                                             dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0], dims.block[1], dims.block[2]));
    const int smem = static_cast<int>(dims.smem);
    // Above 48 KiB with the static arrays, dynamic shared memory must be asked for per function.
    if (smem > 0 && smem + k.static_smem > 48 * 1024 && smem > k.dynamic_smem_set) {
      check(d_.cuFuncSetAttribute(k.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
            fmt::format("cuFuncSetAttribute('{}', MAX_DYNAMIC_SHARED_SIZE_BYTES, {})", k.entry, smem));
      k.dynamic_smem_set = smem;
    }
    check(d_.cuLaunchKernel(k.function, static_cast<unsigned>(dims.grid[0]), static_cast<unsigned>(dims.grid[1]),
                            static_cast<unsigned>(dims.grid[2]), static_cast<unsigned>(dims.block[0]),
                            static_cast<unsigned>(dims.block[1]), static_cast<unsigned>(dims.block[2]),
                            static_cast<unsigned>(smem), stream_, args, nullptr),
          fmt::format("cuLaunchKernel('{}', grid ({}, {}, {}), block ({}, {}, {}), {} bytes shared)", k.entry, dims.grid[0],
                      dims.grid[1], dims.grid[2], dims.block[0], dims.block[1], dims.block[2], smem));
  }

  void record_graph(CudaKernel& k, const LaunchDims& dims, const std::vector<void**>& arg_sets, int launches, GraphExec& exec) {
    check(d_.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    capturing_ = true;
    CUgraph graph = nullptr;
    try {
      for (int i = 0; i < launches; ++i) enqueue(k, dims, arg_sets[static_cast<std::size_t>(i) % arg_sets.size()]);
    } catch (...) {
      // Leave capture mode, or the stream refuses everything after.
      capturing_ = false;
      if (d_.cuStreamEndCapture(stream_, &graph) == CUDA_SUCCESS && graph) d_.cuGraphDestroy(graph);
      throw;
    }
    capturing_ = false;
    check(d_.cuStreamEndCapture(stream_, &graph), "cuStreamEndCapture");
    const CUresult rc = d_.cuGraphInstantiate(&exec.handle, graph, 0);
    d_.cuGraphDestroy(graph);
    check(rc, "cuGraphInstantiateWithFlags");
  }

  // Stream-ordered before what follows; the L2 flush after them leaves nothing of them in L2.
  void copy(const BufferCopies& copies) {
    for (const BufferCopy& c : copies)
      check(d_.cuMemcpyDtoDAsync(device_ptr(c.dst), device_ptr(c.src), c.bytes, stream_), "cuMemcpyDtoDAsync (restoring a timed launch's buffers)");
  }

  void flush_l2() { check(d_.cuMemsetD8Async(flush_, 0, flush_bytes_, stream_), "cuMemsetD8Async (L2 flush)"); }

  double elapsed_ms(const std::string& entry) {
    check(d_.cuEventSynchronize(stop_), "cuEventSynchronize (after '" + entry + "')");
    float ms = 0;
    check(d_.cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

  // Device-to-device copies of a buffer much larger than L2: each moves its bytes twice (read and
  // write). Copies for 100 ms of the device's time, so that its clocks are up, and the best of
  // them: the floor is the device's capability, not a cold start or a bad moment.
  double measure_copy_bandwidth() {
    std::size_t free_bytes = 0, total = 0;
    check(d_.cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
    const std::size_t bytes = std::min<std::size_t>({std::size_t{512} << 20, free_bytes / 4,
                                                     std::max<std::size_t>(static_cast<std::size_t>(8 * props_.l2_bytes), 64u << 20)});
    CUdeviceptr a = 0, b = 0;
    check(d_.cuMemAlloc(&a, bytes), "cuMemAlloc (copy bandwidth)");
    double best_ms = 0;
    try {
      check(d_.cuMemAlloc(&b, bytes), "cuMemAlloc (copy bandwidth)");
      check(d_.cuMemsetD8Async(a, 1, bytes, stream_), "cuMemsetD8Async");
      check(d_.cuMemcpyDtoDAsync(b, a, bytes, stream_), "cuMemcpyDtoDAsync");
      const auto wall_start = std::chrono::steady_clock::now();
      double device_ms = 0;
      for (int i = 0; i < 10 || (device_ms < 100 && i < 1000); ++i) {
        check(d_.cuEventRecord(start_, stream_), "cuEventRecord");
        check(d_.cuMemcpyDtoDAsync(i % 2 ? a : b, i % 2 ? b : a, bytes, stream_), "cuMemcpyDtoDAsync");
        check(d_.cuEventRecord(stop_, stream_), "cuEventRecord");
        const double ms = elapsed_ms("a device-to-device copy");
        device_ms += ms;
        if (ms > 0 && (best_ms == 0 || ms < best_ms)) best_ms = ms;
        if (std::chrono::steady_clock::now() - wall_start > std::chrono::seconds(2)) break;
      }
    } catch (...) {
      release(reinterpret_cast<void*>(static_cast<std::uintptr_t>(a)));
      release(reinterpret_cast<void*>(static_cast<std::uintptr_t>(b)));
      throw;
    }
    release(reinterpret_cast<void*>(static_cast<std::uintptr_t>(a)));
    release(reinterpret_cast<void*>(static_cast<std::uintptr_t>(b)));
    return best_ms > 0 ? 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) * 1e-9 : 0;
  }

  const CudaDriver& d_;
  CudaDeviceProperties props_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  CUdeviceptr flush_ = 0;
  std::size_t flush_bytes_ = 0;
  DeviceInfo info_;
  bool lost_ = false;
  bool capturing_ = false;  // a batch is being recorded into a graph
};

}  // namespace

std::string cuda_driver_version() {
  const CudaDriver& d = cuda_driver();
  int v = 0;
  cuda_check(d, d.cuDriverGetVersion(&v), "cuDriverGetVersion");
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::vector<CudaDeviceProperties> cuda_devices() {
  const CudaDriver& d = cuda_driver();
  int count = 0;
  cuda_check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<CudaDeviceProperties> out;
  for (int i = 0; i < count; ++i) out.push_back(read_properties(d, i));
  return out;
}

double theoretical_bandwidth_gbs(int memory_clock_khz, int bus_width_bits) {
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) * 1e-9;
}

double peak_gflops_bound(const CudaDeviceProperties& p) {
  // Dense 8-bit tensor-core operations per SM and clock (A100, H100/H200, B200): above every
  // 16-bit and 32-bit rate, so no bf16 kernel can honestly come near it.
  int per_sm_clock = 0;
  switch (p.cc_major * 10 + p.cc_minor) {
    case 80: per_sm_clock = 4096; break;
    case 90: per_sm_clock = 8192; break;
    case 100: per_sm_clock = 16384; break;
    default: return 0;
  }
  return static_cast<double>(p.sm_count) * per_sm_clock * p.clock_khz * 1e3 * 1e-9;
}

std::string compile_arch_for(const std::string& device_arch, const std::vector<std::string>& nvrtc_archs) {
  const int want = std::stoi(device_arch.substr(device_arch.find('_') + 1));
  int best = 0;
  for (const auto& a : nvrtc_archs) {
    const int n = std::stoi(a.substr(a.find('_') + 1));
    if (n <= want && n > best) best = n;
  }
  if (best == 0) throw std::invalid_argument("NVRTC targets no architecture at or below " + device_arch);
  return "sm_" + std::to_string(best);
}

std::unique_ptr<Device> make_cuda_device(int ordinal) { return std::make_unique<CudaDevice>(cuda_driver(), ordinal); }

std::unique_ptr<Device> make_cuda_device(const CudaDriver& driver, int ordinal) {
  return std::make_unique<CudaDevice>(driver, ordinal);
}

}  // namespace hone
