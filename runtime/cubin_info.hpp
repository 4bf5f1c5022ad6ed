#pragma once
// What a CUBIN says about itself, read from its ELF headers with no driver and no GPU: the
// architecture it runs on and the kernels it holds. The cuda device loads a CUBIN only when its
// architecture is the device's own, and says so before the driver would fail with less detail.
#include <string>
#include <vector>

namespace hone {

struct CubinInfo {
  int arch = 0;                      // 90 for sm_90
  std::vector<std::string> entries;  // global functions (kernels), as named in the symbol table
};

/// Reads a CUBIN (an ELF64 image for the CUDA machine). Throws std::invalid_argument saying what
/// is wrong for anything else (not ELF, another machine, truncated).
CubinInfo read_cubin_info(const std::string& cubin);

/// The architecture PTX was generated for, from its `.target sm_XX` line: 90 for sm_90 (and
/// sm_90a). Throws std::invalid_argument when there is no such line.
int ptx_target_arch(const std::string& ptx);

}  // namespace hone
