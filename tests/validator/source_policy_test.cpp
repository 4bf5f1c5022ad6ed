#include <doctest/doctest.h>

#include "validator/source_policy.hpp"

using namespace hone;

namespace {
std::string check(const std::string& src, const std::string& device = "emu") { return untrusted_source_violation(src, device); }
}  // namespace

TEST_CASE("source policy: ordinary kernels pass") {
  CHECK(check(R"(#include <cuda_bf16.h>
#include "cuda_fp16.h"
// system("x") in a comment is not a call, nor is "fopen(" in a string
template <int N> __device__ __forceinline__ float twice(float x) { return 2.f * x; }
namespace detail { __device__ float half(float x) { return x / 2.f; } }
struct Pack { __device__ float get() const { return v; } float v; };
extern "C" __global__ void k(float* o, const float* x, int n) {
  __shared__ float s[32];
  static_assert(sizeof(float) == 4, "float");
  const char* msg = "open(";
  if (threadIdx.x < n) o[threadIdx.x] = twice<1>(x[threadIdx.x]) + detail::half(1.f);
})") == "");
  CHECK(check("__constant__ float table[4] = {1, 2, 3, 4};\nextern \"C\" __global__ void k(float* o) { o[0] = table[0]; }") == "");
  CHECK(check("extern \"C\" __global__ void k(float* o) { asm volatile(\"\"); }", "cuda") == "");
}

TEST_CASE("source policy: what untrusted code may not do") {
  CHECK(check("#include <stdio.h>\n").find("includes \"stdio.h\"") != std::string::npos);
  CHECK(check("#include \"../../secret.h\"\n").find("not a CUDA header") != std::string::npos);
  CHECK(check("__global__ void k() { asm(\"trap;\"); }").find("inline assembly") != std::string::npos);
  CHECK(check("__global__ void c() {}\n__global__ void k() { c<<<1, 1>>>(); }").find("dynamic parallelism") != std::string::npos);
  CHECK(check("__managed__ int x;").find("__managed__") != std::string::npos);
  CHECK(check("__device__ int calls;\n__global__ void k() { calls++; }").find("__device__ variable 'calls'") != std::string::npos);
  CHECK(check("namespace a { __device__ float memo[16]; }").find("__device__ variable 'memo'") != std::string::npos);
  CHECK(check("extern \"C\" int system(const char*);\nstatic int x = system(\"id\");").find("'system'") != std::string::npos);
  CHECK(check("__global__ void k() { void* f = fopen(\"/etc/passwd\", \"r\"); }").find("'fopen'") != std::string::npos);
  CHECK(check("__global__ void k() { char* h = getenv(\"HOME\"); }").find("'getenv'") != std::string::npos);
}

TEST_CASE("source policy: trusted origins are not held to it") {
  Candidate c;
  c.source = "__device__ int calls;";
  c.origin = "template";
  CHECK(source_policy_verdict(c, "emu").pass);
  c.origin = "llm";
  Verdict v = source_policy_verdict(c, "emu");
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "static");
  CHECK(v.reason.rfind("untrusted source declares", 0) == 0);
}

TEST_CASE("source policy: directives that read other files are held to the CUDA headers too") {
  // GCC still honours #import in C++ (a deprecated #include once), and #include_next and
  // `#pragma GCC dependency` open the file they name.
  CHECK(check("#import \"/etc/passwd\"\n").find("includes \"/etc/passwd\"") != std::string::npos);
  CHECK(check("#  include_next <stdlib.h>\n").find("includes \"stdlib.h\"") != std::string::npos);
  CHECK(check("#pragma GCC dependency \"/etc/shadow\"\n").find("reads another file") != std::string::npos);
  CHECK(check("_Pragma(\"GCC dependency \\\"/etc/shadow\\\"\")\n").find("_Pragma") != std::string::npos);
  CHECK(check("#pragma unroll 4\n#pragma once\n#import_not_a_directive\n") == "");
}
