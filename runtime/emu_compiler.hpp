#pragma once
// Compiling CUDA C++ for the emu device: the host C++ compiler builds the same source, against
// the emulation prelude (runtime/emu/include), into a shared object that the emu device loads.
#include <filesystem>
#include <string>
#include <vector>

namespace hone {

struct EmuCompileRequest {
  std::string source;                    // CUDA C++ exactly as NVRTC compiles it
  std::string entry;                     // the extern "C" __global__ function to call
  std::vector<std::string> param_types;  // CUDA spelling of each parameter: "const __nv_bfloat16*", "int", "float"
  int cuda_arch = 900;                   // the value of __CUDA_ARCH__ in the emulated code
};

struct EmuBuild {
  bool ok = false;
  std::string log;                       // compiler diagnostics; on failure, the error text
  std::filesystem::path shared_object;
  std::string invoke_symbol;             // extern "C" void(void** args): calls entry with args[i] -> parameter i
  double compile_ms = 0;
  bool cached = false;                   // reused from the cache, not compiled now
};

/// Builds (or reuses from cache_root()/emu, keyed by a hash of everything that affects the
/// result) the shared object for a request. Thread-safe; never throws for a bad kernel: a
/// kernel that does not compile gives ok=false and the log.
EmuBuild compile_for_emu(const EmuCompileRequest& request);

}  // namespace hone
