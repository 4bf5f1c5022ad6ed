#include "runtime/device_select.hpp"

#include <dlfcn.h>

#include "core/input_error.hpp"
#include "runtime/emu_device.hpp"
#include "runtime/none_device.hpp"

namespace hone {

bool cuda_driver_present() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!h) return false;
  dlclose(h);
  return true;
}

// The cuda device (driver API, device timing) is not part of this build yet; until it is, a
// request for it is refused rather than served by something else.
DeviceChoice choose_device(const std::string& requested) {
  if (requested == "emu") return {"emu", ""};
  if (requested == "none") return {"none", ""};
  if (requested == "cuda")
    throw InputError(cuda_driver_present() ? "--device cuda: this hone has no cuda device yet; use --device emu"
                                           : "--device cuda: no CUDA driver on this machine (libcuda.so.1 not found); use --device emu");
  if (requested == "auto")
    return {"emu", cuda_driver_present() ? "a CUDA driver is present but this hone has no cuda device yet: running on emu (CPU)"
                                         : "no CUDA driver (libcuda.so.1 not found): running on emu (CPU)"};
  throw InputError("--device '" + requested + "': expected auto, emu, cuda or none");
}

std::unique_ptr<Device> open_device(const std::string& kind, const std::string& arch) {
  if (kind == "emu") return make_emu_device(arch);
  if (kind == "none") return make_none_device(arch);
  throw InputError("device '" + kind + "' cannot be opened by this hone");
}

}  // namespace hone
