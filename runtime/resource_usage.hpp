#pragma once
// What a compiled kernel costs on the device, as ptxas reports it (`-Xptxas=-v`).
#include <map>
#include <string>

namespace hone {

struct ResourceUsage {
  int registers = -1;      // per thread; -1 when ptxas did not report the kernel
  int spill_stores = 0;    // bytes
  int spill_loads = 0;     // bytes
  int shared_bytes = 0;    // static shared memory
  int stack_bytes = 0;     // stack frame: local memory per thread
  int barriers = 0;
  int const_bytes = 0;     // cmem[0]: kernel parameters and constants
};

/// Reads ptxas's verbose report (from NVRTC's log or the ptxas binary) into per-entry usage,
/// keyed by the entry function's (lowered) name.
std::map<std::string, ResourceUsage> parse_ptxas_info(const std::string& log);

}  // namespace hone
