#pragma once
// Compiling untrusted source (an LLM's, or a kernel handed to `hone check`) outside hone's own
// process. hone never feeds such source to a compiler itself: each build runs in a fresh
// hone-worker process in compile mode, under the compile sandbox (validator/sandbox.hpp), which
// runs NVRTC and the emu's host compiler and sends back only the build: logs, PTX, CUBIN, resource
// figures and the path of the emu object. A compiler that crashes, hangs or eats memory on
// crafted source ends that process, not the job: the build fails with the reason.
#include <atomic>
#include <filesystem>
#include <optional>

#include "runtime/kernel_build.hpp"

namespace hone {

struct IsolatedBuildOptions {
  double timeout_s = 300;            // wall clock for one build; the process group is killed after it
  std::filesystem::path executable;  // empty: find_worker_executable()
};

/// Builds `request` in a sandboxed compile process. Never throws for a bad kernel or a compile
/// process that fails: the build is not ok and its error says why.
KernelBuild build_isolated(const KernelBuildRequest& request, const std::optional<NvrtcResult>& known_nvrtc = {},
                           const IsolatedBuildOptions& options = {});

/// How many compile processes this process has started (tests check untrusted source went there).
std::size_t isolated_builds_started();

/// The compile process's side: reads one request from `in_fd` to its end, enters the compile
/// sandbox, builds, writes the build to `out_fd`. Returns the process's exit status.
int serve_isolated_build(int in_fd, int out_fd, double timeout_s);

}  // namespace hone
