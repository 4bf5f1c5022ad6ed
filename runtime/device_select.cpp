#include "runtime/device_select.hpp"

#include "core/input_error.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/cuda_driver.hpp"
#include "runtime/emu_device.hpp"
#include "runtime/none_device.hpp"

namespace hone {

std::string cuda_unavailable_reason() {
  try {
    const CudaDriver& d = cuda_driver();
    int count = 0;
    cuda_check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount");
    return count > 0 ? "" : "the CUDA driver sees no GPU";
  } catch (const std::exception& e) {
    return e.what();
  }
}

DeviceChoice choose_device(const std::string& requested) {
  if (requested == "emu") return {"emu", ""};
  if (requested == "none") return {"none", ""};
  if (requested == "cuda") {
    const std::string why = cuda_unavailable_reason();
    if (!why.empty()) throw InputError("--device cuda: " + why + "; use --device emu");
    return {"cuda", ""};
  }
  if (requested == "auto") {
    const std::string why = cuda_unavailable_reason();
    if (why.empty()) return {"cuda", ""};
    return {"emu", why + ": running on emu (CPU)"};
  }
  throw InputError("--device '" + requested + "': expected auto, emu, cuda or none");
}

std::unique_ptr<Device> open_device(const std::string& kind, const std::string& arch) {
  if (kind == "emu") return make_emu_device(arch);
  if (kind == "none") return make_none_device(arch);
  if (kind == "cuda") return make_cuda_device(0);
  throw InputError("device '" + kind + "' cannot be opened by this hone");
}

}  // namespace hone
