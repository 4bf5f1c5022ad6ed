// compile_for_emu: diagnostics, the cache, concurrency, and that every emu test kernel is also
// valid CUDA for the real compiler.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "emu_test_support.hpp"
#include "support/scoped_env.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

// A source no earlier run has compiled, so the first compile cannot be a cache hit.
std::string fresh_source(const std::string& body) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return "// nonce " + std::to_string(now) + " " + std::to_string(std::rand()) + "\n" + body;
}

const char* kAddOne = R"(
extern "C" __global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
)";

}  // namespace

TEST_CASE("emu compile: an error gives ok=false and the compiler's message") {
  const EmuBuild b = compile_for_emu({"extern \"C\" __global__ void broken(float* out) {\n"
                                      "  out[0] = undefined_thing;\n}\n",
                                      "broken", {"float*"}, 900});
  CHECK_FALSE(b.ok);
  INFO(b.log);
  CHECK(b.log.find("undefined_thing") != std::string::npos);
  CHECK(b.log.find("kernel.cu:2") != std::string::npos);  // the user's line, not the generated file's
  CHECK(b.log.find("error") != std::string::npos);
}

TEST_CASE("emu compile: dynamic shared memory rewrites keep the user's line numbers") {
  // Line 1 is rewritten into a macro at namespace scope, lines 3-4 into a local pointer; the
  // errors on lines 6 and 8 must still be reported there.
  const EmuBuild b = compile_for_emu({"extern __shared__ float4 quads[];\n"
                                      "extern \"C\" __global__ void k(float* out) {\n"
                                      "  extern __shared__ __align__(16)\n"
                                      "      float tile[];\n"
                                      "  tile[0] = quads[0].x;\n"
                                      "  out[0] = missing_one;\n"
                                      "  // a comment\n"
                                      "  out[1] = missing_two;\n"
                                      "}\n",
                                      "k", {"float*"}, 900});
  CHECK_FALSE(b.ok);
  INFO(b.log);
  CHECK(b.log.find("kernel.cu:6") != std::string::npos);
  CHECK(b.log.find("kernel.cu:8") != std::string::npos);
  CHECK(b.log.find("tile") == std::string::npos);  // the rewritten declarations themselves compile
}

TEST_CASE("emu compile: wrong parameter types are a compile error, not a crash") {
  const EmuBuild b = compile_for_emu({kAddOne, "add_one", {"float*"}, 900});
  CHECK_FALSE(b.ok);
  CHECK_FALSE(b.log.empty());
}

TEST_CASE("emu compile: the second compile of the same request is a cache hit") {
  const EmuCompileRequest request{fresh_source(kAddOne), "add_one", {"float*", "int"}, 900};
  const EmuBuild first = compile_for_emu(request);
  INFO(first.log);
  REQUIRE(first.ok);
  CHECK_FALSE(first.cached);
  const EmuBuild second = compile_for_emu(request);
  REQUIRE(second.ok);
  CHECK(second.cached);
  CHECK(second.shared_object == first.shared_object);
  CHECK(second.invoke_symbol == first.invoke_symbol);
  MESSAGE("emu compile of a small kernel: " << first.compile_ms << " ms; cache hit: " << second.compile_ms << " ms");

  EmuCompileRequest other_arch = request;
  other_arch.cuda_arch = 800;  // part of the key: a different object
  const EmuBuild third = compile_for_emu(other_arch);
  REQUIRE(third.ok);
  CHECK(third.shared_object != first.shared_object);

  const EmuModule m = EmuModule::load(second.shared_object, second.invoke_symbol);
  std::vector<float> x(100, 1.0f);
  float* px = x.data();
  int n = 100;
  auto a = args(px, n);
  m.launch(dims({4, 1, 1}, {32, 1, 1}), a.data());
  CHECK(x == std::vector<float>(100, 2.0f));
}

TEST_CASE("emu compile: concurrent compiles of one new source all succeed with one object") {
  const EmuCompileRequest request{fresh_source(kAddOne), "add_one", {"float*", "int"}, 900};
  std::vector<EmuBuild> builds(4);
  std::vector<std::thread> threads;
  for (auto& b : builds) threads.emplace_back([&b, &request] { b = compile_for_emu(request); });
  for (auto& t : threads) t.join();
  for (const auto& b : builds) {
    INFO(b.log);
    CHECK(b.ok);
    CHECK(b.shared_object == builds[0].shared_object);
    CHECK(std::filesystem::exists(b.shared_object));
  }
  // No temporary of this request is left behind (other tests may be compiling right now).
  const std::string temp_prefix = "tmp-" + builds[0].shared_object.stem().string().substr(0, 16);
  for (const auto& entry : std::filesystem::directory_iterator(builds[0].shared_object.parent_path()))
    CHECK(entry.path().filename().string().rfind(temp_prefix, 0) != 0);
}

TEST_CASE("emu compile: every emu test kernel also compiles for sm_90 with nvcc") {
  namespace fs = std::filesystem;
  std::string nvcc;
  for (const char* candidate : {"nvcc", "/usr/local/cuda/bin/nvcc"})
    if (std::system((std::string("command -v ") + candidate + " > /dev/null 2>&1").c_str()) == 0) {
      nvcc = candidate;
      break;
    }
  const bool cuda_installed = fs::exists("/usr/local/cuda/include/cuda.h");
  if (nvcc.empty()) {
    CHECK_MESSAGE(!cuda_installed, "CUDA is installed (/usr/local/cuda/include) but nvcc was not found");
    return;
  }
  const fs::path out_dir = fs::path(HONE_BINARY_DIR) / "emu-nvcc-check";
  fs::create_directories(out_dir);
  std::vector<fs::path> kernels;
  for (const auto& e : fs::directory_iterator(fs::path(HONE_TEST_DATA_DIR) / "emu"))
    if (e.path().extension() == ".cu") kernels.push_back(e.path());
  REQUIRE(kernels.size() >= 5);
  // One shell line compiles them all in parallel; each failure leaves a .log behind.
  std::string line = "cd '" + out_dir.string() + "' && rm -f *.log && for f in";
  for (const auto& k : kernels) line += " '" + k.string() + "'";
  // A cubin newer than its source is already proven; only changed kernels are compiled again.
  line += "; do n=$(basename \"$f\" .cu); [ \"$n.cubin\" -nt \"$f\" ] || (rm -f \"$n.cubin\"; " + nvcc +
          " --cubin -arch=sm_90 -o \"$n.cubin\" \"$f\" > \"$n.out\" 2>&1 || mv \"$n.out\" \"$n.log\") & done; wait; "
          "! ls *.log > /dev/null 2>&1";
  const int rc = std::system(line.c_str());
  std::string failures;
  for (const auto& e : fs::directory_iterator(out_dir))
    if (e.path().extension() == ".log") failures += e.path().stem().string() + " ";
  INFO("nvcc failed on: " << failures << "(logs in " << out_dir.string() << ")");
  CHECK(rc == 0);
}

TEST_CASE("emu compile: a kernel with host code that runs at load time is refused, and nothing is cached") {
  const std::string source = fresh_source(R"(
#include <stdio.h>
struct Opener {
  Opener() { fopen("/tmp/hone-should-not-exist", "w"); }
};
static Opener opener;
extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
)");
  const EmuBuild b = compile_for_emu({source, "k", {"float*"}, 900});
  CHECK_FALSE(b.ok);
  INFO(b.log);
  CHECK(b.log.find("host code that would run when it is loaded") != std::string::npos);
  CHECK(b.log.find("static initialisers: constructors of namespace-scope objects") != std::string::npos);
  CHECK(b.shared_object.empty());

  const EmuBuild ctor = compile_for_emu({fresh_source("volatile int touched;\n"
                                                      "__attribute__((constructor)) static void early() { touched = 1; }\n"
                                                      "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n"),
                                         "k", {"float*"}, 900});
  CHECK_FALSE(ctor.ok);
  CHECK(ctor.log.find("static initialisers: early()") != std::string::npos);
}

TEST_CASE("emu load: a shared object with its own initialiser is refused before dlopen runs it") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(HONE_BINARY_DIR) / "emu-init-check";
  fs::create_directories(dir);
  const fs::path src = dir / "ctor.cpp", so = dir / "ctor.so", marker = dir / "ran";
  fs::remove(marker);
  {
    std::ofstream out(src);
    out << "#include <stdio.h>\n__attribute__((constructor)) static void ran() { fclose(fopen(\"" << marker.string()
        << "\", \"w\")); }\nextern \"C\" void hone_emu_invoke_k(void**) {}\n";
  }
  REQUIRE(std::system(("g++ -shared -fPIC -o '" + so.string() + "' '" + src.string() + "'").c_str()) == 0);
  std::string why;
  try {
    EmuModule::load(so, "hone_emu_invoke_k");
  } catch (const std::exception& e) {
    why = e.what();
  }
  CHECK_MESSAGE(why.find("refusing to load") != std::string::npos, why);
  CHECK_MESSAGE(why.find("ran()") != std::string::npos, why);
  CHECK_FALSE(fs::exists(marker));
}

TEST_CASE("emu compile: the prelude is precompiled once and reused by later compiles") {
  namespace fs = std::filesystem;
  const EmuBuild first = compile_for_emu({fresh_source(kAddOne), "add_one", {"float*", "int"}, 900});
  REQUIRE_MESSAGE(first.ok, first.log);
  std::vector<fs::path> pchs;
  for (const auto& e : fs::directory_iterator(first.shared_object.parent_path()))
    if (e.is_directory() && e.path().filename().string().rfind("prelude-", 0) == 0 &&
        fs::exists(e.path() / "hone_emu_prelude.h.gch"))
      pchs.push_back(e.path() / "hone_emu_prelude.h.gch");
  REQUIRE_FALSE(pchs.empty());
  std::vector<fs::file_time_type> stamps;
  for (const auto& p : pchs) stamps.push_back(fs::last_write_time(p));
  const EmuBuild second = compile_for_emu({fresh_source(kAddOne), "add_one", {"float*", "int"}, 900});
  REQUIRE(second.ok);
  CHECK_FALSE(second.cached);
  for (std::size_t i = 0; i < pchs.size(); ++i) CHECK(fs::last_write_time(pchs[i]) == stamps[i]);
}

TEST_CASE("emu compile: an emulation header touched but not changed leaves the precompiled prelude usable") {
  // A fresh checkout (or a branch switched back) gives the headers new times and the same bytes:
  // the prelude's folder is named by their bytes, and the compiler must not refuse its form.
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("hone-pch-touch-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "home" / "runtime" / "emu");
  fs::copy(fs::path(HONE_SOURCE_DIR) / "runtime" / "emu" / "include", root / "home" / "runtime" / "emu" / "include",
           fs::copy_options::recursive);
  const test::ScopedEnv home("HONE_HOME", (root / "home").c_str());
  const test::ScopedEnv cache("HONE_CACHE_DIR", (root / "cache").c_str());
  const EmuBuild first = compile_for_emu({fresh_source(kAddOne), "add_one", {"float*", "int"}, 900});
  REQUIRE_MESSAGE(first.ok, first.log);
  const fs::path header = root / "home" / "runtime" / "emu" / "include" / "cuda_fp16.h";
  fs::last_write_time(header, fs::last_write_time(header) + std::chrono::hours(1));
  const EmuBuild second = compile_for_emu({fresh_source(kAddOne), "add_one", {"float*", "int"}, 900});
  CHECK_MESSAGE(second.ok, second.log);
  fs::remove_all(root);
}
