// A test double of the CUDA driver (libcuda), for the machines without a GPU where the tests run:
// it exports the driver functions hone resolves, under the same versioned names, and answers them
// the way the driver documents, so that the cuda device, its worker and the tuner run their
// driver call sequences here. Loaded only by tests, through $HONE_LIBCUDA.
//
// What it models:
//  - one GPU, "hone fake GPU (test driver)", sm_90, 4 MiB of L2 and 256 MiB of memory that is
//    host memory; copies and memsets are checked against the allocations and move real bytes,
//    except device-to-device copies above kFakeCopyMovesBytes (the bandwidth measurement's: they
//    take their time on the clock and move nothing, or the measurement would take seconds here);
//  - shared memory: a kernel has HONE_FAKE_CUDA_STATIC_SMEM bytes of static shared memory
//    (default 0) and may launch with 48 KiB less that of dynamic shared memory unless allowed more
//    with cuFuncSetAttribute, as on the GPU;
//  - time on a virtual clock per stream: a kernel launch takes HONE_FAKE_CUDA_KERNEL_US
//    microseconds (default 5), a memset or copy its bytes at kFakeBandwidthGBs (a copy moves its
//    bytes twice: read and write); events read that clock;
//  - stream capture: launches and memsets are recorded into the graph, a synchronisation while
//    capturing is refused and invalidates the capture, as the driver does;
//  - modules: a CUBIN must be an ELF image, PTX must be text; a function is found only when its
//    name is in the image;
//  - faults, by kernel name: a kernel named *crashes* leaves the context faulted with
//    CUDA_ERROR_ILLEGAL_ADDRESS (or the CUresult in HONE_FAKE_CUDA_FAULT) at the next
//    synchronisation (every call fails from then on, a sticky error); a kernel named *hangs*
//    never finishes (a synchronisation waits forever).
//  - scripted kernels, by name, for the ops of tests/data/validator/fake_ops: a kernel named
//    twice* computes out[i] = 2 * x[i] (twice(float* out, const float* x, int n)), one named
//    accumulate* state[i] += x[i] (accumulate(float* state, const float* x, int n)), when the
//    stream runs them (in a replayed graph too, with the arguments captured); one named
//    *skips_when_filled leaves its output alone when out[0] already holds a number, one named
//    *skips_half_when_filled then does only the first half: the attacks on a timing that leaves
//    the previous result in the output. A kernel named gemv* computes the gemv op of
//    templates/gemv (out[m,n] = sum_k x[m,k] w[n,k] in bf16, accumulated in double), whatever
//    its launch, so that a gemv task runs end to end here (its reference, its candidates and the
//    cuBLAS double, tests/support/fake_libcublas.cpp, which enqueues its product on the stream);
//  - host functions (cuLaunchHostFunc) run when the stream reaches them, in a replayed graph too,
//    and take HONE_FAKE_CUDA_HOST_US microseconds (default: as long as a kernel);
//  - a trace: with HONE_FAKE_CUDA_TRACE set to a file, one line per operation as the stream runs
//    it: "upload N", "download N", "copy N", "memset N", "event", "graph N" (launches), and
//    "kernel NAME found F" for a scripted kernel, F being what its output held as it started:
//    "result" (what it is about to write), "nan" or "number".
// Every other kernel computes nothing: every buffer keeps what was uploaded, an output the poison
// hone fills it with, so no other kernel passes hone's reference stage here.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fake_bf16.hpp"

constexpr double kFakeBandwidthGBs = 2000;
constexpr std::size_t kFakeMemoryBytes = std::size_t{256} << 20;
constexpr int kFakeL2Bytes = 4 << 20;
constexpr std::size_t kFakeCopyMovesBytes = std::size_t{16} << 20;

struct CUctx_st {};
struct CUmod_st {
  std::string image;
};
struct CUfunc_st {
  std::string name;
  int static_smem = 0;
  int max_dynamic_smem = 48 * 1024;
};
// One thing a stream runs: a kernel or a memory operation, with how long it takes, and for the
// trace what it is ("memset 8388608"); a scripted kernel keeps the values of its arguments.
struct FakeWork {
  double ns = 0;
  const CUfunc_st* kernel = nullptr;
  std::string what;
  CUdeviceptr arg0 = 0, arg1 = 0;
  int arg2 = 0;
  CUdeviceptr gemv_w = 0;  // gemv*: out, x and w in arg0, arg1, gemv_w; M, N, K
  int gemv_dims[3] = {0, 0, 0};
  CUhostFn host_fn = nullptr;
  void* host_data = nullptr;
};
struct CUstream_st {
  double clock_ns = 0;
  bool capturing = false;
  bool capture_invalidated = false;
  std::vector<FakeWork> captured;
  bool pending_crash = false;
  bool pending_hang = false;
};
struct CUevent_st {
  double ns = -1;  // not recorded yet
  CUstream_st* stream = nullptr;
};
struct CUgraph_st {
  std::vector<FakeWork> work;
};
struct CUgraphExec_st {
  std::vector<FakeWork> work;
};

namespace {

std::mutex mutex;
bool initialised = false;
CUresult sticky = CUDA_SUCCESS;  // once set, every call answers it
CUctx_st primary_context;
int context_references = 0;
// As in the driver, the current context belongs to the calling thread.
thread_local bool context_current = false;
CUstream_st null_stream;
std::vector<CUstream_st*> streams{&null_stream};
std::map<std::uintptr_t, std::size_t> allocations;
std::size_t allocated = 0;

double env_number(const char* name, double otherwise) {
  const char* v = std::getenv(name);
  return v && *v ? std::atof(v) : otherwise;
}

double kernel_ns() { return env_number("HONE_FAKE_CUDA_KERNEL_US", 5) * 1e3; }
double host_function_ns() { return env_number("HONE_FAKE_CUDA_HOST_US", kernel_ns() / 1e3) * 1e3; }

double bytes_ns(double bytes) { return bytes / (kFakeBandwidthGBs * 1e9) * 1e9; }

void trace(const std::string& line) {
  const char* file = std::getenv("HONE_FAKE_CUDA_TRACE");
  if (!file || !*file) return;
  if (FILE* f = std::fopen(file, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

bool has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }
bool is_gemv(const std::string& name) { return name.rfind("gemv", 0) == 0; }
bool scripted(const std::string& name) {
  return name.rfind("twice", 0) == 0 || name.rfind("accumulate", 0) == 0 || is_gemv(name);
}

void run_gemv(const FakeWork& w) {
  using hone::fake::bf16_at;
  void* out = reinterpret_cast<void*>(w.arg0);
  const void* x = reinterpret_cast<const void*>(w.arg1);
  const void* wt = reinterpret_cast<const void*>(w.gemv_w);
  const int M = w.gemv_dims[0], N = w.gemv_dims[1], K = w.gemv_dims[2];
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += double(bf16_at(x, std::int64_t(m) * K + k)) * bf16_at(wt, std::int64_t(n) * K + k);
      hone::fake::store_bf16(out, std::int64_t(m) * N + n, static_cast<float>(sum));
    }
  trace("kernel " + w.kernel->name);
}

// A scripted kernel, run as the stream reaches it.
void run_scripted(const FakeWork& w) {
  const std::string& name = w.kernel->name;
  if (is_gemv(name)) return run_gemv(w);
  auto* out = reinterpret_cast<float*>(w.arg0);
  const auto* x = reinterpret_cast<const float*>(w.arg1);
  const int n = w.arg2;
  if (name.rfind("accumulate", 0) == 0) {
    for (int i = 0; i < n; ++i) out[i] += x[i];
    trace("kernel " + name);
    return;
  }
  bool holds_result = n > 0;
  for (int i = 0; i < n && holds_result; ++i) holds_result = out[i] == 2 * x[i];
  const bool filled = n > 0 && std::isfinite(out[0]);
  trace("kernel " + name + " found " + (holds_result ? "result" : filled ? "number" : "nan"));
  int todo = n;
  if (filled && has(name, "skips_when_filled")) todo = 0;
  if (filled && has(name, "skips_half_when_filled")) todo = n / 2;
  for (int i = 0; i < todo; ++i) out[i] = 2 * x[i];
}

CUstream_st* stream_of(CUstream s) { return s ? s : &null_stream; }

// The allocation holding [p, p + bytes), or false.
bool in_allocation(CUdeviceptr p, std::size_t bytes) {
  auto it = allocations.upper_bound(static_cast<std::uintptr_t>(p));
  if (it == allocations.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

// What every call checks first: the driver is initialised, the context is sound and current.
CUresult usable(bool needs_context = true) {
  if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
  if (sticky != CUDA_SUCCESS) return sticky;
  if (needs_context && !context_current) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

// Runs what a stream was given: a crash faults the context, a hang never returns.
CUresult finish(CUstream_st* s) {
  if (s->capturing) {
    s->capture_invalidated = true;
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  // Holding the lock, as a hung GPU holds up every caller, until the process is killed.
  if (s->pending_hang)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (s->pending_crash) {
    sticky = static_cast<CUresult>(env_number("HONE_FAKE_CUDA_FAULT", CUDA_ERROR_ILLEGAL_ADDRESS));
    return sticky;
  }
  return CUDA_SUCCESS;
}

void run(CUstream_st* s, const FakeWork& w) {
  if (s->capturing) {
    s->captured.push_back(w);
    return;
  }
  s->clock_ns += w.ns;
  if (w.host_fn) w.host_fn(w.host_data);
  if (w.kernel && scripted(w.kernel->name)) run_scripted(w);
  else if (!w.what.empty()) trace(w.what);
  if (w.kernel && w.kernel->name.find("crashes") != std::string::npos) s->pending_crash = true;
  if (w.kernel && w.kernel->name.find("hangs") != std::string::npos) s->pending_hang = true;
}

}  // namespace

#define FAKE_CHECK(...)                                 \
  std::lock_guard<std::mutex> lock(mutex);              \
  if (CUresult rc = usable(__VA_ARGS__); rc != CUDA_SUCCESS) return rc

CUresult cuInit(unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  initialised = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_INITIALIZED: *name = "CUDA_ERROR_NOT_INITIALIZED"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_CONTEXT: *name = "CUDA_ERROR_INVALID_CONTEXT"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_HANDLE: *name = "CUDA_ERROR_INVALID_HANDLE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: *name = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"; return CUDA_SUCCESS;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: *name = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"; return CUDA_SUCCESS;
    case CUDA_ERROR_UNKNOWN: *name = "CUDA_ERROR_UNKNOWN"; return CUDA_SUCCESS;
    default: *name = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  switch (error) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: *text = "an illegal memory access was encountered"; return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE: *text = "invalid argument"; return CUDA_SUCCESS;
    default: *text = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDeviceGetCount(int* count) {
  FAKE_CHECK(false);
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  FAKE_CHECK(false);
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
  FAKE_CHECK(false);
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<std::size_t>(len), "%s", "hone fake GPU (test driver)");
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  FAKE_CHECK(false);
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = kFakeL2Bytes; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 232448; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice device) {
  FAKE_CHECK(false);
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = kFakeMemoryBytes;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  FAKE_CHECK(false);
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  ++context_references;
  *context = &primary_context;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  FAKE_CHECK(false);
  if (device != 0 || context_references == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --context_references;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  FAKE_CHECK(false);
  if (context && (context != &primary_context || context_references == 0)) return CUDA_ERROR_INVALID_CONTEXT;
  context_current = context != nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  FAKE_CHECK();
  for (CUstream_st* s : streams)
    if (CUresult rc = finish(s); rc != CUDA_SUCCESS) return rc;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  FAKE_CHECK();
  const char* bytes = static_cast<const char*>(image);
  std::string copy;
  if (std::memcmp(bytes, "\x7f" "ELF", 4) == 0) {
    const auto* header = reinterpret_cast<const unsigned char*>(bytes);
    // An ELF64 image: its size is the section headers' end (e_shoff + e_shnum * e_shentsize).
    std::uint64_t shoff = 0;
    std::uint16_t shentsize = 0, shnum = 0;
    std::memcpy(&shoff, header + 0x28, 8);
    std::memcpy(&shentsize, header + 0x3a, 2);
    std::memcpy(&shnum, header + 0x3c, 2);
    copy.assign(bytes, shoff + std::uint64_t{shentsize} * shnum);
  } else if (bytes[0] == '/' || bytes[0] == '.' || bytes[0] == '\n') {
    copy = bytes;  // PTX: NUL-terminated text
  } else {
    return CUDA_ERROR_INVALID_IMAGE;
  }
  *module = new CUmod_st{std::move(copy)};
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  FAKE_CHECK();
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  FAKE_CHECK();
  if (!module) return CUDA_ERROR_INVALID_HANDLE;
  if (module->image.find(name) == std::string::npos) return CUDA_ERROR_NOT_FOUND;
  // The module owns its functions in the driver; a leak here is a test's lifetime.
  const int static_smem = static_cast<int>(env_number("HONE_FAKE_CUDA_STATIC_SMEM", 0));
  *function = new CUfunc_st{name, static_smem, 48 * 1024 - static_smem};
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  FAKE_CHECK();
  if (attribute == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) *value = function->static_smem;
  else if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) *value = function->max_dynamic_smem;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  FAKE_CHECK();
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value + function->static_smem > 232448)
    return CUDA_ERROR_INVALID_VALUE;
  function->max_dynamic_smem = value;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int smem, CUstream stream, void** params, void** extra) {
  FAKE_CHECK();
  if (!f || !params || extra) return CUDA_ERROR_INVALID_VALUE;
  if (gx == 0 || gy == 0 || gz == 0 || gy > 65535 || gz > 65535 || bz > 64) return CUDA_ERROR_INVALID_VALUE;
  if (std::uint64_t{bx} * by * bz > 1024 || bx == 0 || by == 0 || bz == 0) return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<int>(smem) > f->max_dynamic_smem) return CUDA_ERROR_INVALID_VALUE;
  FakeWork w{kernel_ns(), f, "kernel " + f->name};
  if (scripted(f->name)) {
    std::memcpy(&w.arg0, params[0], sizeof w.arg0);
    std::memcpy(&w.arg1, params[1], sizeof w.arg1);
    if (is_gemv(f->name)) {
      std::memcpy(&w.gemv_w, params[2], sizeof w.gemv_w);
      for (int i = 0; i < 3; ++i) std::memcpy(&w.gemv_dims[i], params[3 + i], sizeof(int));
    } else {
      std::memcpy(&w.arg2, params[2], sizeof w.arg2);
    }
  }
  run(stream_of(stream), w);
  return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* data) {
  FAKE_CHECK();
  if (!fn) return CUDA_ERROR_INVALID_VALUE;
  FakeWork w{host_function_ns(), nullptr, "host function"};
  w.host_fn = fn;
  w.host_data = data;
  run(stream_of(stream), w);
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr* ptr, std::size_t bytes) {
  FAKE_CHECK();
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  if (allocated + rounded > kFakeMemoryBytes) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = std::aligned_alloc(256, rounded);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  allocations[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  allocated += rounded;
  *ptr = reinterpret_cast<std::uintptr_t>(p);
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr ptr) {
  FAKE_CHECK();
  auto it = allocations.find(static_cast<std::uintptr_t>(ptr));
  if (it == allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  allocated -= (it->second + 255) / 256 * 256;
  std::free(reinterpret_cast<void*>(it->first));
  allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  FAKE_CHECK();
  *free_bytes = kFakeMemoryBytes - allocated;
  *total = kFakeMemoryBytes;
  return CUDA_SUCCESS;
}

// Copies between host and device inside a capture are not modelled (hone captures only launches).
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream) {
  FAKE_CHECK();
  if (!in_allocation(dst, bytes) || stream_of(stream)->capturing) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  run(stream_of(stream), {bytes_ns(static_cast<double>(bytes)), nullptr, "upload " + std::to_string(bytes)});
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  FAKE_CHECK();
  if (!in_allocation(src, bytes) || stream_of(stream)->capturing) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  run(stream_of(stream), {bytes_ns(static_cast<double>(bytes)), nullptr, "download " + std::to_string(bytes)});
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  FAKE_CHECK();
  if (!in_allocation(dst, bytes) || !in_allocation(src, bytes) || stream_of(stream)->capturing) return CUDA_ERROR_INVALID_VALUE;
  if (bytes <= kFakeCopyMovesBytes) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  run(stream_of(stream), {bytes_ns(2.0 * static_cast<double>(bytes)), nullptr, "copy " + std::to_string(bytes)});
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream stream) {
  FAKE_CHECK();
  if (!in_allocation(dst, bytes)) return CUDA_ERROR_INVALID_VALUE;
  if (!stream_of(stream)->capturing) std::memset(reinterpret_cast<void*>(dst), value, bytes);
  run(stream_of(stream), {bytes_ns(static_cast<double>(bytes)), nullptr, "memset " + std::to_string(bytes)});
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  FAKE_CHECK();
  if (flags != CU_STREAM_DEFAULT && flags != CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  *stream = new CUstream_st;
  streams.push_back(*stream);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream) {
  FAKE_CHECK();
  auto it = std::find(streams.begin(), streams.end(), stream);
  if (!stream || it == streams.end()) return CUDA_ERROR_INVALID_HANDLE;
  streams.erase(it);
  delete stream;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  FAKE_CHECK();
  return finish(stream_of(stream));
}

CUresult cuEventCreate(CUevent* event, unsigned int) {
  FAKE_CHECK();
  *event = new CUevent_st;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  FAKE_CHECK();
  if (!event) return CUDA_ERROR_INVALID_HANDLE;
  CUstream_st* s = stream_of(stream);
  // The driver records an event node into a capture; not modelled, and refused, so that a test
  // notices if hone starts timing inside a capture (where the events would time nothing).
  if (s->capturing) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  event->ns = s->clock_ns;
  event->stream = s;
  trace("event");
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  FAKE_CHECK();
  if (!event) return CUDA_ERROR_INVALID_HANDLE;
  return event->stream ? finish(event->stream) : CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  FAKE_CHECK();
  if (!start || !end) return CUDA_ERROR_INVALID_HANDLE;
  if (start->ns < 0 || end->ns < 0) return CUDA_ERROR_INVALID_HANDLE;
  *ms = static_cast<float>((end->ns - start->ns) * 1e-6);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  FAKE_CHECK();
  delete event;
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode) {
  FAKE_CHECK();
  CUstream_st* s = stream_of(stream);
  if (!stream) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;  // the legacy null stream cannot capture
  if (s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = true;
  s->capture_invalidated = false;
  s->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  FAKE_CHECK();
  CUstream_st* s = stream_of(stream);
  if (!s->capturing) return CUDA_ERROR_ILLEGAL_STATE;
  s->capturing = false;
  if (s->capture_invalidated) {
    *graph = nullptr;
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = new CUgraph_st{std::move(s->captured)};
  s->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiate(CUgraphExec* exec, CUgraph graph, unsigned long long) {
  FAKE_CHECK();
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  *exec = new CUgraphExec_st{graph->work};
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  FAKE_CHECK();
  if (!exec) return CUDA_ERROR_INVALID_VALUE;
  trace("graph " + std::to_string(exec->work.size()));
  for (const FakeWork& w : exec->work) run(stream_of(stream), w);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  FAKE_CHECK();
  delete graph;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  FAKE_CHECK();
  delete exec;
  return CUDA_SUCCESS;
}
