#include "runtime/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace hone {

namespace {

struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle) nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram p) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n <= 1) return "";
  std::string log(n, '\0');
  nvrtcGetProgramLog(p, log.data());
  log.resize(n - 1);
  return log;
}

// One NVRTC compile; returns the status and fills log (and outputs on success).
nvrtcResult compile_once(const NvrtcRequest& req, const std::vector<std::string>& options, NvrtcResult& out,
                         bool want_outputs) {
  Program p;
  nvrtcResult rc = nvrtcCreateProgram(&p.handle, req.source.c_str(), req.file_name.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    out.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(rc);
    return rc;
  }
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  rc = nvrtcCompileProgram(p.handle, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(p.handle);
  if (rc != NVRTC_SUCCESS || !want_outputs) return rc;

  size_t n = 0;
  if (nvrtcGetPTXSize(p.handle, &n) == NVRTC_SUCCESS && n > 0) {
    out.ptx.resize(n);
    nvrtcGetPTX(p.handle, out.ptx.data());
    if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  }
  if (req.arch.rfind("sm_", 0) == 0 && nvrtcGetCUBINSize(p.handle, &n) == NVRTC_SUCCESS && n > 0) {
    out.cubin.resize(n);
    nvrtcGetCUBIN(p.handle, out.cubin.data());
  }
  return rc;
}

}  // namespace

int arch_number(const std::string& arch) {
  for (const char* prefix : {"sm_", "compute_"}) {
    std::string p = prefix;
    if (arch.rfind(p, 0) == 0 && arch.size() > p.size()) {
      std::string digits = arch.substr(p.size());
      if (!digits.empty() && digits.back() == 'a') digits.pop_back();  // sm_90a
      if (!digits.empty() && std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::stoi(digits);
    }
  }
  throw std::invalid_argument("'" + arch + "' is not an architecture (expected sm_XX or compute_XX)");
}

std::vector<std::string> nvrtc_supported_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return {};
  std::vector<int> archs(n);
  nvrtcGetSupportedArchs(archs.data());
  std::vector<std::string> out;
  for (int a : archs) out.push_back("sm_" + std::to_string(a));
  return out;
}

std::string nvrtc_identity() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "--std=c++17"};
  if (arch.rfind("sm_", 0) == 0) o.push_back("-Xptxas=-v");  // ptxas's resource usage; only sm_ targets run ptxas
  return o;
}

std::string compiler_build_of(const std::string& binary) {
  const std::string marker = "Cuda compilation tools";
  const std::size_t at = binary.find(marker);
  if (at == std::string::npos) return "";
  std::size_t end = at;
  while (end < binary.size() && binary[end] != '\n' && binary[end] != '\0' && end - at < 200) ++end;
  return binary.substr(at, end - at);
}

std::string cuda_include_dir() {
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    std::filesystem::path p = std::filesystem::path(home) / "include";
    if (std::filesystem::exists(p / "cuda_bf16.h")) return p.string();
  }
  return HONE_CUDA_INCLUDE_DIR;
}

NvrtcResult until_reported(const std::function<NvrtcResult()>& compile, int attempts) {
  NvrtcResult out = compile();
  for (int tried = 1; tried < attempts && out.ok && out.usage.empty(); ++tried) out = compile();
  return out;
}

NvrtcResult nvrtc_compile(const NvrtcRequest& req) {
  const int number = arch_number(req.arch);
  auto supported = nvrtc_supported_archs();
  if (std::find(supported.begin(), supported.end(), "sm_" + std::to_string(number)) == supported.end()) {
    std::string list;
    for (const auto& a : supported) list += (list.empty() ? "" : ", ") + a;
    throw std::invalid_argument(nvrtc_identity() + " cannot target " + req.arch + " (it supports " + list + ")");
  }

  // The fixed options with the include folder after the first two, a request's extras before
  // -Xptxas=-v; without -Xptxas=-v when compiling again for ptxas's error text.
  std::vector<std::string> verbose = nvrtc_options(req.arch);
  const bool has_ptxas = req.arch.rfind("sm_", 0) == 0;
  verbose.insert(verbose.begin() + 2, "-I" + cuda_include_dir());
  // CUDA 13 keeps libcu++ (cuda/std/..., which <cooperative_groups.h> includes) in include/cccl.
  const std::filesystem::path cccl = std::filesystem::path(cuda_include_dir()) / "cccl";
  const bool has_cccl = std::filesystem::exists(cccl / "cuda" / "std");
  if (has_cccl) verbose.insert(verbose.begin() + 3, "-I" + cccl.string());
  verbose.insert(verbose.begin() + (has_cccl ? 4 : 3), req.options.begin(), req.options.end());
  std::vector<std::string> options = verbose;
  if (has_ptxas) options.pop_back();

  nvrtcResult rc = NVRTC_SUCCESS;
  auto compile = [&] {
    NvrtcResult attempt;
    auto start = std::chrono::steady_clock::now();
    rc = compile_once(req, verbose, attempt, true);
    attempt.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    attempt.ok = rc == NVRTC_SUCCESS;
    if (attempt.ok && has_ptxas) attempt.usage = parse_ptxas_info(attempt.log);
    return attempt;
  };
  // A source without a kernel is reported empty every time: three compiles, then the static
  // stage says no entry was found.
  NvrtcResult out = has_ptxas ? until_reported(compile, 3) : compile();
  if (out.ok) return out;
  if (has_ptxas) {
    // With -Xptxas=-v, NVRTC's log carries ptxas's info lines but not a ptxas error: compile
    // again without it to get the error text.
    NvrtcResult quiet;
    compile_once(req, options, quiet, false);
    if (!quiet.log.empty() && quiet.log != out.log) out.log = quiet.log;
  }
  if (out.log.empty()) out.log = nvrtcGetErrorString(rc);
  return out;
}

}  // namespace hone
