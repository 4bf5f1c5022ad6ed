#pragma once
// What the toolkit's ptxas binary reports for a PTX file: the independent account that hone's
// resource usage (read from NVRTC's log) must agree with.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/nvrtc_compiler.hpp"
#include "support/run_command.hpp"

namespace hone::test {

/// ptxas -v's report on `ptx` for `arch`; throws when the toolkit has no ptxas.
inline std::string ptxas_report(const std::string& ptx, const std::string& arch) {
  const auto ptxas = std::filesystem::path(cuda_include_dir()).parent_path() / "bin" / "ptxas";
  if (!std::filesystem::exists(ptxas)) throw std::runtime_error("no ptxas at " + ptxas.string());
  const auto dir = std::filesystem::temp_directory_path() / ("hone-ptxas-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "k.ptx") << ptx; }
  CommandResult r = run_command(ptxas.string() + " -v -arch=" + arch + " -o " + (dir / "k.cubin").string() + " " +
                                (dir / "k.ptx").string());
  std::filesystem::remove_all(dir);
  return r.output;
}

}  // namespace hone::test
