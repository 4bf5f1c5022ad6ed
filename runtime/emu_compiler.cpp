#include "runtime/emu_compiler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/paths.hpp"
#include "core/sha256.hpp"
#include "runtime/emu/compile/elf_initialisers.hpp"
#include "runtime/emu/compile/emu_source.hpp"
#include "runtime/emu/compile/precompiled_prelude.hpp"
#include "runtime/emu/compile/run_process.hpp"
#include "runtime/emu/rt/grid.hpp"

namespace hone {

namespace fs = std::filesystem;

namespace {

// Bump when the layout of the generated translation unit changes.
constexpr const char* kEmuFormat = "hone-emu-so-2";

fs::path runtime_library() {
  fs::path p = emu::runtime_library_path();
#ifdef HONE_EMU_RT_PATH
  if (p.empty()) p = HONE_EMU_RT_PATH;
#endif
  return p;
}

// The compiler emu builds kernels with. By default the clang hone was built against, with the
// warp-loops plugin beside the runtime (runtime/emu/warp_loops); $HONE_EMU_CXX names another
// ("ccache g++" works: words, not a shell), which compiles without the plugin, so every kernel
// runs as fibers, as $HONE_EMU_WARP_LOOPS=0 makes the default clang do. Without that clang or
// the plugin (a bundle copied elsewhere), g++.
struct EmuCompiler {
  std::vector<std::string> command;
  fs::path warp_loops_plugin;  // empty: none
};

EmuCompiler emu_compiler() {
  EmuCompiler c;
  if (const char* cxx = std::getenv("HONE_EMU_CXX"); cxx && *cxx) {
    std::istringstream in(cxx);
    for (std::string w; in >> w;) c.command.push_back(w);
  }
  if (!c.command.empty()) return c;
#ifdef HONE_EMU_CLANG
  const fs::path plugin = runtime_library().parent_path() / "libhone_warp_loops.so";
  std::error_code ignored;
  if (fs::exists(HONE_EMU_CLANG, ignored) && fs::exists(plugin, ignored)) {
    c.command = {HONE_EMU_CLANG};
    const char* loops = std::getenv("HONE_EMU_WARP_LOOPS");
    if (!loops || std::string(loops) != "0") c.warp_loops_plugin = plugin;
    return c;
  }
#endif
  c.command = {"g++"};
  return c;
}

// What the compiler says it is, once per process and command.
std::string compiler_identity(const std::vector<std::string>& cxx) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::string> known;
  std::lock_guard lock(mutex);
  auto it = known.find(cxx);
  if (it != known.end()) return it->second;
  std::vector<std::string> argv = cxx;
  argv.push_back("--version");
  const emu::ProcessResult r = emu::run_process(argv);
  std::string id = r.started && r.exit_code == 0 ? r.output : std::string();
  if (!id.empty()) known.emplace(cxx, id);  // a compiler that failed to run is asked again
  return id;
}

// Every header a kernel may see, with its path: editing the emulation headers invalidates the cache.
// Read once per process and folder: compile_for_emu runs for every candidate.
std::string headers_digest(const fs::path& include_dir) {
  static std::mutex mutex;
  static std::map<fs::path, std::string> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(include_dir); it != known.end()) return it->second;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(include_dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    all += fs::relative(f, include_dir).generic_string() + '\0';
    all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    all += '\0';
  }
  return known[include_dir] = sha256_hex(all);
}

// A digest of a file's bytes, once per process and path: the plugin's code decides what a kernel
// compiles to, so a rebuilt plugin must not reuse objects the old one made.
std::string file_digest(const fs::path& file) {
  static std::mutex mutex;
  static std::map<fs::path, std::string> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(file); it != known.end()) return it->second;
  std::ifstream in(file, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return known[file] = sha256_hex(bytes);
}

std::string symbol_for(const std::string& entry) {
  std::string s = "hone_emu_invoke_";
  for (char c : entry) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

// A name no other thread or process will pick for its temporary files.
std::string unique_suffix() {
  static std::atomic<unsigned long> counter{0};
  std::ostringstream s;
  s << getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id()) << '-' << counter++;
  return s.str();
}

std::vector<std::string> compile_flags(const fs::path& include_dir, int arch, const EmuCompiler& compiler) {
  std::vector<std::string> flags = {"-std=c++17",
          "-O2",
          "-g0",
          "-pipe",
          "-fPIC",
          "-shared",
          "-fno-strict-aliasing",  // kernels reinterpret bf16 data as uint4 and the like
          "-fno-math-errno",
          "-fstack-clash-protection",  // a large frame touches the fiber stack's guard page first
          "-fvisibility=hidden",   // only the trampoline is looked up
          "-I",
          include_dir.string(),
          "-D__CUDA_ARCH__=" + std::to_string(arch),
          "-ffp-contract=off"};  // a*b+c stays two roundings, as it is without an FMA unit
#if defined(__x86_64__)
  // With the host's FMA unit fmaf is one instruction instead of a libm call (the result is the
  // same fused operation). Objects are built and run on this machine, and the flag is part of the
  // cache key, so a host without FMA never loads one built with it.
  if (__builtin_cpu_supports("fma")) flags.push_back("-mfma");
#endif
  // clang stores each header's time in a precompiled header and refuses it once a time changed (a
  // fresh checkout); the prelude's folder is named by the headers' bytes, so times need no say.
  if (compiler_identity(compiler.command).find("clang") != std::string::npos)
    flags.insert(flags.end(), {"-Xclang", "-fno-pch-timestamp"});
  if (!compiler.warp_loops_plugin.empty()) {
    flags.push_back("-fpass-plugin=" + compiler.warp_loops_plugin.string());
    // clang would otherwise delete a loop without side effects as undefined behaviour: a kernel
    // that spins must hang on emu as it does on the GPU.
    flags.push_back("-fno-finite-loops");
  }
  return flags;
}

// The header to force-include: the prelude, precompiled once per compiler, flags and headers
// (and per process asked for once).
fs::path prelude_header(const std::vector<std::string>& cxx, const std::vector<std::string>& flags,
                        const fs::path& include_dir, const std::string& headers) {
  std::string material = std::string(kEmuFormat) + '\0' + headers + '\0' + compiler_identity(cxx) + '\0';
  for (const auto& w : cxx) material += w + '\0';
  for (const auto& f : flags) material += f + '\0';
  const fs::path dir = cache_root() / "emu" / ("prelude-" + sha256_hex(material).substr(0, 32));
  static std::mutex mutex;
  static std::map<fs::path, fs::path> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(dir); it != known.end()) return it->second;
  return known[dir] = emu::precompiled_prelude(cxx, flags, include_dir, dir, unique_suffix());
}

}  // namespace

EmuBuild compile_for_emu(const EmuCompileRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  EmuBuild build;
  auto finish = [&]() -> EmuBuild {
    build.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return build;
  };
  try {
    if (request.entry.empty()) {
      build.log = "emu compile: no entry function named";
      return finish();
    }
    const fs::path include_dir = hone_home() / "runtime" / "emu" / "include";
    if (!fs::exists(include_dir / "hone_emu" / "prelude.h")) {
      build.log = "emu compile: emulation headers not found in " + include_dir.string() + " (is HONE_HOME right?)";
      return finish();
    }
    const fs::path runtime = runtime_library();
    const EmuCompiler compiler = emu_compiler();
    const std::vector<std::string>& cxx = compiler.command;
    std::vector<std::string> flags = compile_flags(include_dir, request.cuda_arch, compiler);
    const std::string headers = headers_digest(include_dir);
    flags.insert(flags.end(), {"-include", prelude_header(cxx, flags, include_dir, headers).string()});
    build.invoke_symbol = symbol_for(request.entry);
    const std::string unit =
        emu::emu_translation_unit(request.source, request.entry, request.param_types, build.invoke_symbol);

    std::string key_material = std::string(kEmuFormat) + '\0' + unit + '\0' + request.entry + '\0';
    for (const auto& t : request.param_types) key_material += t + '\0';
    key_material += std::to_string(request.cuda_arch) + '\0' + headers + '\0' +
                    compiler_identity(cxx) + '\0' + runtime.string() + '\0';
    if (!compiler.warp_loops_plugin.empty()) key_material += file_digest(compiler.warp_loops_plugin) + '\0';
    for (const auto& w : cxx) key_material += w + '\0';
    for (const auto& f : flags) key_material += f + '\0';
    const std::string key = sha256_hex(key_material);

    const fs::path dir = cache_root() / "emu";
    fs::create_directories(dir);
    const fs::path object = dir / (key + ".so");
    if (fs::exists(object)) {
      build.ok = true;
      build.cached = true;
      build.shared_object = object;
      return finish();
    }

    const std::string temp = "tmp-" + key.substr(0, 16) + "-" + unique_suffix();
    const fs::path source_file = dir / (temp + ".cpp");
    const fs::path temp_object = dir / (temp + ".so");
    {
      std::ofstream out(source_file, std::ios::binary);
      out << unit;
      if (!out) throw std::runtime_error("cannot write " + source_file.string());
    }
    std::vector<std::string> argv = cxx;
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-o", temp_object.string(), source_file.string()});
    if (!runtime.empty())  // resolve the built-ins now, and load exactly this runtime later
      argv.insert(argv.end(), {runtime.string(), "-Wl,-rpath," + runtime.parent_path().string(), "-Wl,-z,defs"});
    const emu::ProcessResult result = emu::run_process(argv);
    std::error_code ignored;
    fs::remove(source_file, ignored);
    build.log = result.output;
    if (!result.started || result.exit_code != 0 || !fs::exists(temp_object)) {
      if (result.started && build.log.empty()) build.log = "the compiler exited with status " + std::to_string(result.exit_code);
      fs::remove(temp_object, ignored);
      return finish();
    }
    // Host code that would run when the object is loaded is refused here, before anything loads
    // it; the object is not kept, so the cache never holds one.
    if (const std::string problem = emu::host_initialiser_problem(temp_object); !problem.empty()) {
      fs::remove(temp_object, ignored);
      build.log = (build.log.empty() ? "" : build.log + "\n") + "emu compile: " + problem;
      return finish();
    }
    fs::rename(temp_object, object);  // atomic: readers see no file or a whole one
    build.ok = true;
    build.shared_object = object;
  } catch (const std::exception& e) {
    build.ok = false;
    build.log += std::string(build.log.empty() ? "" : "\n") + "emu compile failed: " + e.what();
  }
  return finish();
}

}  // namespace hone
