#pragma once
// A kernel built for the emu device, loaded and ready to launch on the CPU: every CUDA thread is
// a fiber, __syncthreads a block barrier, warp intrinsics a warp barrier.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/launch_rule.hpp"

namespace hone {

/// A kernel fault the emulator detected (barrier divergence, a bad launch, a guard zone found
/// overwritten); what() is the reason.
struct EmuKernelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EmuModule {
 public:
  /// dlopens the shared object and finds the invoke symbol; throws std::runtime_error on failure,
  /// and without loading it when the object would run host code of its own at load time.
  /// `cluster`: the entry's __cluster_dims__, as the CUDA compiler read them (ptx_cluster_dims):
  /// its blocks then run as thread-block clusters.
  static EmuModule load(const std::filesystem::path& shared_object, const std::string& invoke_symbol,
                        const std::array<unsigned, 3>& cluster = {1, 1, 1});

  /// Runs the whole grid; args[i] points to the value of parameter i, as for cuLaunchKernel.
  /// Returns when every block has finished; throws EmuKernelError on a detected fault.
  /// schedule_seed: 0 runs blocks and threads in their plain order; any other value shuffles the
  /// order blocks are handed out and ready threads resume in, the same way for the same seed.
  void launch(const LaunchDims& dims, void** args, std::uint64_t schedule_seed = 0) const;

  /// Bytes of static __shared__ memory (the module's thread-local storage), poisoned per block.
  std::size_t static_shared_bytes() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace hone
