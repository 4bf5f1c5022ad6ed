#include "runtime/kernel_build.hpp"

namespace hone {

bool KernelBuild::ok() const { return nvrtc.ok && (!for_emu || emu.ok); }

std::string KernelBuild::error() const {
  if (!nvrtc.ok) return "nvrtc: " + nvrtc.log;
  if (for_emu && !emu.ok) return "emu: " + emu.log;
  return "";
}

bool is_vendor_entry(const std::string& entry) { return entry.rfind("vendor:", 0) == 0; }

KernelBuild build_kernel(const KernelBuildRequest& req, const std::optional<NvrtcResult>& known_nvrtc) {
  KernelBuild b;
  b.image.entry = req.entry;
  if (is_vendor_entry(req.entry)) {
    b.nvrtc.ok = true;
    ResourceUsage none;
    none.registers = 0;
    b.nvrtc.usage[req.entry] = none;
    return b;
  }
  b.nvrtc = known_nvrtc ? *known_nvrtc : nvrtc_compile({req.source + req.nvrtc_suffix, req.entry + ".cu", req.arch, {}});
  if (!b.nvrtc.ok) return b;
  b.image.ptx = b.nvrtc.ptx;
  b.image.cubin = b.nvrtc.cubin;
  if (req.device_kind == "emu") {
    b.for_emu = true;
    b.emu = compile_for_emu({req.source, req.entry, req.param_types, arch_number(req.arch) * 10});
    if (b.emu.ok) {
      b.image.emu_object = b.emu.shared_object;
      b.image.emu_invoke = b.emu.invoke_symbol;
    }
  }
  return b;
}

}  // namespace hone
