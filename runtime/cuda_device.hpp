#pragma once
// The cuda device: NVIDIA GPUs through the driver API (runtime/cuda_driver.hpp).
//
// One device holds the GPU's primary context for its process, one stream, and a buffer larger
// than the L2 cache that is written before every timed run, so that no run reads what the one
// before it left in L2. Kernels are loaded from the CUBIN when it was built for the device's own
// architecture, else from PTX the driver JIT-compiles (an architecture newer than NVRTC knows).
// Every driver call is checked; a fault that leaves the context unusable (an illegal address, a
// trap, a kernel killed by the display watchdog) marks the device lost(), and the worker that
// holds it ends and is replaced.
#include <string>
#include <vector>

#include "runtime/device.hpp"

namespace hone {

struct CudaDriver;  // runtime/cuda_driver.hpp

struct CudaDeviceProperties {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double l2_bytes = 0;
  double memory_bytes = 0;
  int memory_clock_khz = 0;    // peak memory clock
  int bus_width_bits = 0;
  int clock_khz = 0;           // SM clock
  int max_shared_per_block_optin = 0;
  bool kernel_time_limit = false;  // a display watchdog ends long kernels

  /// "sm_90"
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

/// The driver's CUDA version, "13.0". Throws CudaUnavailable with the one-line reason.
std::string cuda_driver_version();

/// Every GPU the driver sees, with its properties. Throws CudaUnavailable with the one-line reason.
std::vector<CudaDeviceProperties> cuda_devices();

/// The memory bandwidth the attributes promise: two transfers per clock (DDR) over the bus, GB/s.
double theoretical_bandwidth_gbs(int memory_clock_khz, int bus_width_bits);

/// An upper bound on any kernel's arithmetic rate on the device, GFLOP/s: the tensor cores' dense
/// 8-bit rate per SM and clock for the architectures hone knows (80, 90, 100), 0 (unknown) for
/// others. Generous on purpose: it only has to catch a kernel that skips its work.
double peak_gflops_bound(const CudaDeviceProperties& p);

/// The architecture to compile for on a device of `device_arch`: its own when this NVRTC targets
/// it, else the newest NVRTC target below it (its PTX is JIT-compiled by the driver). Throws
/// std::invalid_argument when NVRTC knows nothing at or below it.
std::string compile_arch_for(const std::string& device_arch, const std::vector<std::string>& nvrtc_archs);

/// Opens GPU `ordinal`: its primary context, a stream, the L2 flush buffer; measures its copy
/// bandwidth once (device-to-device cuMemcpy) into info().copy_bandwidth_gbs. Throws
/// CudaUnavailable without a driver or device, CudaError when a driver call fails.
std::unique_ptr<Device> make_cuda_device(int ordinal = 0);

/// The same through `driver` rather than the process's (tests open the driver's test double this
/// way); `driver` must outlive the device.
std::unique_ptr<Device> make_cuda_device(const CudaDriver& driver, int ordinal);

}  // namespace hone
