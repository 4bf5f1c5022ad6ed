#pragma once
// NVRTC: CUDA C++ to PTX and CUBIN for a named architecture, with ptxas's resource usage for
// every entry. Needs no GPU.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/resource_usage.hpp"

namespace hone {

struct NvrtcRequest {
  std::string source;
  std::string file_name = "kernel.cu";      // how the source is named in diagnostics
  std::string arch = "sm_90";               // sm_XX for CUBIN and PTX; compute_XX for PTX only
  std::vector<std::string> options;         // extra NVRTC options
};

struct NvrtcResult {
  bool ok = false;
  std::string log;                          // warnings, and on failure the error text
  std::string ptx;
  std::string cubin;                        // empty for a compute_XX target
  std::map<std::string, ResourceUsage> usage;  // per entry (extern "C" name)
  double compile_ms = 0;
};

/// Compiles; never throws for a bad kernel (ok=false, the compiler's error in log). Throws
/// std::invalid_argument for an architecture NVRTC does not support.
NvrtcResult nvrtc_compile(const NvrtcRequest& request);

/// Runs `compile` until a successful result carries ptxas's report of at least one entry, at most
/// `attempts` times, and returns the last result. On an H200 host NVRTC once returned a
/// successful compile with an empty log (2 of 110 compiles, 16 threads compiling at once): the
/// kernel was fine, and only its resource report was lost.
NvrtcResult until_reported(const std::function<NvrtcResult()>& compile, int attempts);

/// "nvrtc 13.0", the compiler identity stored with every compile.
std::string nvrtc_identity();

/// The options every compile for `arch` is given, in order, besides the include folder of the
/// CUDA headers (-I, the toolkit's own) and a request's extra options: what the export records
/// and the gate compiles with again.
std::vector<std::string> nvrtc_options(const std::string& arch);

/// The compiler build a PTX or CUBIN names ("Cuda compilation tools, release 13.0, V13.0.88"),
/// "" when it names none: two builds of one NVRTC version may compile differently.
std::string compiler_build_of(const std::string& binary);

/// Architectures this NVRTC can target, as "sm_XX".
std::vector<std::string> nvrtc_supported_archs();

/// 90 for "sm_90" or "compute_90"; throws std::invalid_argument for anything else.
int arch_number(const std::string& arch);

/// The folder holding the CUDA headers kernels include ($CUDA_HOME/include, else the toolkit hone was built with).
std::string cuda_include_dir();

}  // namespace hone
