#pragma once
// A kernel built for the emu device, loaded and ready to launch on the CPU: every CUDA thread is
// a fiber, __syncthreads a block barrier, warp intrinsics a warp barrier.
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/launch_rule.hpp"

namespace hone {

/// A kernel fault the emulator detected (barrier divergence, a bad launch); what() is the reason.
struct EmuKernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EmuModule {
 public:
  /// dlopens the shared object and finds the invoke symbol; throws std::runtime_error on failure.
  static EmuModule load(const std::filesystem::path& shared_object, const std::string& invoke_symbol);

  /// Runs the whole grid; args[i] points to the value of parameter i, as for cuLaunchKernel.
  /// Returns when every block has finished; throws EmuKernelError on a detected fault.
  void launch(const LaunchDims& dims, void** args) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace hone
