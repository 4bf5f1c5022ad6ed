#include "validator/device_rate.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "core/host_tensor.hpp"
#include "runtime/device_select.hpp"
#include "runtime/emu_compiler.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace hone {

namespace {

// Grid-stride over the elements, as the family kernels stride over rows: each thread keeps a
// running value through `reps` multiply-adds, so reps=1 measures moving bytes and a large reps
// measures arithmetic.
constexpr const char* kCalibrationSource = R"(
extern "C" __global__ void hone_calibrate(float* out, const float* x, int n, int reps) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
    for (int r = 0; r < reps; ++r) v = v * 0.999f + 0.5f;
    out[i] = v;
  }
}
)";

// What every family kernel compiles against: the bf16 header is most of a small kernel's NVRTC time.
constexpr const char* kCompileSource = R"(
#include <cuda_bf16.h>
extern "C" __global__ void hone_calibrate_compile(__nv_bfloat16* out, const __nv_bfloat16* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(__bfloat162float(x[i]) * 2.0f);
}
)";

}  // namespace

double measure_compile_seconds(const std::string& arch) {
  try {
    const NvrtcResult r = nvrtc_compile({kCompileSource, "calibration.cu", arch, {}});
    return r.ok ? r.compile_ms / 1e3 : 0;
  } catch (const std::invalid_argument&) {
    return 0;  // an architecture this NVRTC does not know: the job itself says so
  }
}

DeviceRate measure_emu_rate(long long elements, int reps) {
  const EmuBuild build = compile_for_emu({kCalibrationSource, "hone_calibrate", {"float*", "const float*", "int", "int"}, 900});
  if (!build.ok) throw std::runtime_error("the emu calibration kernel does not build: " + build.log);
  auto device = open_device("emu", "sm_90");
  KernelImage image;
  image.entry = "hone_calibrate";
  image.emu_object = build.shared_object;
  image.emu_invoke = build.invoke_symbol;
  auto kernel = device->load(image);
  const std::size_t bytes = static_cast<std::size_t>(elements) * sizeof(float);
  DeviceBuffer in(*device, bytes), out(*device, bytes);
  std::vector<float> host(static_cast<std::size_t>(elements), 1.0f);
  device->upload(in.get(), host.data(), bytes);
  // Few threads, each striding over many elements, as the families' row loops do: the cost per
  // emulated thread (its fiber) is the kernel's launch overhead, not what a byte costs.
  LaunchDims dims;
  dims.block = {128, 1, 1};
  dims.grid = {std::max<long long>(1, std::min<long long>(16, elements / (128 * 64))), 1, 1};
  auto time = [&](int r) {
    void* o = out.get();
    const void* x = in.get();
    int n = static_cast<int>(elements);
    void* args[] = {&o, &x, &n, &r};
    // The fastest of three: on a shared machine the others' load only ever adds time.
    double best = device->timed_launch(*kernel, dims, args);
    for (int i = 0; i < 2; ++i) best = std::min(best, device->timed_launch(*kernel, dims, args));
    return best / 1e3;
  };
  time(1);  // warm-up: the first launch pays for loading the object and touching the pages
  const double moving_s = time(1);
  const double computing_s = time(reps);
  DeviceRate rate;
  rate.source = "measured on emu by a calibration launch";
  rate.bytes_per_s = 2.0 * static_cast<double>(bytes) / moving_s;
  // The arithmetic launch moves the same bytes: what it takes beyond the streaming one is the
  // multiply-adds it adds.
  const double extra_s = computing_s - moving_s;
  rate.flops_per_s = extra_s > 0 ? 2.0 * static_cast<double>(elements) * (reps - 1) / extra_s
                                 : 2.0 * static_cast<double>(elements) * reps / computing_s;
  return rate;
}

double measure_host_rate(std::size_t elements) {
  const auto start = std::chrono::steady_clock::now();
  Rng rng(1);
  const HostTensor drawn = generate_tensor(DType::bf16, elements, InputDist{}, rng);
  const HostTensor copy = drawn;
  const bool same = std::memcmp(copy.bytes.data(), drawn.bytes.data(), drawn.size_bytes()) == 0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return same && s > 0 ? static_cast<double>(drawn.size_bytes()) / s : 0;
}

DeviceRate device_rate(const DeviceInfo& device) {
  DeviceRate rate = launch_rate(device);
  rate.compile_s = measure_compile_seconds(device.arch.empty() ? "sm_90" : device.arch);
  if (rate.launches_known()) rate.host_bytes_per_s = measure_host_rate();
  return rate;
}

DeviceRate launch_rate(const DeviceInfo& device) {
  DeviceRate rate;
  if (device.kind == "emu") {
    // A broken emulator shows in the job's own checks, with their reasons; the estimate only
    // says it has no rate.
    try {
      return measure_emu_rate();
    } catch (const std::exception& e) {
      rate.source = std::string("the emu calibration failed: ") + e.what();
      return rate;
    }
  }
  if (device.kind == "cuda") {
    rate.bytes_per_s = (device.copy_bandwidth_gbs > 0 ? device.copy_bandwidth_gbs : device.peak_bandwidth_gbs) * 1e9;
    rate.flops_per_s = device.peak_gflops * 1e9;
    rate.source = device.copy_bandwidth_gbs > 0 ? "the copy bandwidth measured as the GPU opened and its peak arithmetic"
                                                : "the GPU's peak bandwidth and arithmetic";
    if (!rate.known()) rate.source = "the GPU reported no bandwidth";
    return rate;
  }
  rate.source = "device " + device.kind + " runs nothing: static checks only";
  return rate;
}

}  // namespace hone
