#pragma once
// The emulation prelude, precompiled once (a GCC precompiled header) instead of parsed again for
// every kernel: it halves the compile time of a typical kernel. The header kernels are compiled
// with (-include) is a stub that includes the prelude and the 16-bit type headers; the compiler
// finds its precompiled form next to it, and falls back to the stub's includes when that form
// does not match the compile (the result is the same, only slower).
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "run_process.hpp"

namespace hone::emu {

/// The header to force-include, from `dir` (which the caller keys by everything that shapes the
/// precompiled form: compiler, flags, headers). Precompiles it there if it is not there yet;
/// returns the plain prelude if precompiling fails. `flags` are the kernel compile's flags.
/// Safe against other processes doing the same at the same time (files appear by rename).
inline std::filesystem::path precompiled_prelude(const std::vector<std::string>& cxx, std::vector<std::string> flags,
                                                 const std::filesystem::path& include_dir, const std::filesystem::path& dir,
                                                 const std::string& unique) {
  namespace fs = std::filesystem;
  const fs::path prelude = include_dir / "hone_emu" / "prelude.h";
  const fs::path stub = dir / "hone_emu_prelude.h", pch = dir / "hone_emu_prelude.h.gch";
  std::error_code ec;
  if (fs::exists(stub, ec) && fs::exists(pch, ec)) return stub;
  fs::create_directories(dir, ec);
  const fs::path stub_tmp = dir / ("stub-" + unique), pch_tmp = dir / ("pch-" + unique);
  {
    std::ofstream out(stub_tmp);
    for (const char* h : {"hone_emu/prelude.h", "cuda_bf16.h", "cuda_fp16.h"})
      out << "#include \"" << (include_dir / h).string() << "\"\n";
    if (!out) return prelude;
  }
  fs::rename(stub_tmp, stub, ec);
  if (ec) return prelude;
  std::vector<std::string> argv = cxx;
  for (const auto& f : flags)
    if (f != "-shared") argv.push_back(f);
  argv.insert(argv.end(), {"-x", "c++-header", "-o", pch_tmp.string(), stub.string()});
  const ProcessResult r = run_process(argv);
  if (!r.started || r.exit_code != 0) {
    fs::remove(pch_tmp, ec);
    return prelude;
  }
  fs::rename(pch_tmp, pch, ec);
  return ec ? prelude : stub;
}

}  // namespace hone::emu
