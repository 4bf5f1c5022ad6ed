#pragma once
// Building one kernel for a job: NVRTC for the real architecture always (resource usage, PTX and
// CUBIN), and for the emu device also the host build that runs it on the CPU.
#include <optional>
#include <string>
#include <vector>

#include "runtime/device.hpp"
#include "runtime/emu_compiler.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace hone {

struct KernelBuildRequest {
  std::string source;                    // what NVRTC and the emu compile
  std::string nvrtc_suffix;              // appended for NVRTC only (compile-time checks), "" for none
  std::string entry;
  std::vector<std::string> param_types;
  std::string arch = "sm_90";
  std::string device_kind = "emu";       // "emu" also builds for the CPU; "cuda"/"none" do not
};

struct KernelBuild {
  NvrtcResult nvrtc;
  bool for_emu = false;                  // whether the emu build was asked for
  EmuBuild emu;
  KernelImage image;

  bool ok() const;
  /// The first compiler error, labelled with the compiler ("nvrtc: ..." or "emu: ..."), "" when ok.
  std::string error() const;
};

/// Whether `entry` names a vendor library's call ("vendor:cublas:gemv") rather than a kernel.
bool is_vendor_entry(const std::string& entry);

/// Compiles for the real architecture and, for emu, for the host. Never throws for a bad kernel.
/// `known_nvrtc`, when given, is this request's NVRTC result from an earlier compile (the
/// database's compile cache) and is used instead of compiling again. A vendor entry compiles
/// nothing: its image is the entry alone, which the device that knows the library runs as the
/// library's call, and it uses none of a kernel's resources.
KernelBuild build_kernel(const KernelBuildRequest& request, const std::optional<NvrtcResult>& known_nvrtc = {});

}  // namespace hone
