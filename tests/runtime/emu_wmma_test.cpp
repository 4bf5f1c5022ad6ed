// nvcuda::wmma on the emu device: the tile product of every shape and layout emu has, exact on
// small values, and the misuses the GPU does not allow, each a fault naming what went wrong.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "emu_test_support.hpp"
#include "runtime/nvrtc_compiler.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

const std::vector<std::string> kProductTypes = {"float*", "const __nv_bfloat16*", "const __nv_bfloat16*", "const float*",
                                                "int", "int", "int"};

// `count` elements starting at a 32-byte boundary, as wmma requires of its pointers.
template <class T>
struct Aligned {
  explicit Aligned(std::size_t count) : storage(count + 32 / sizeof(T)) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
    data = storage.data() + (32 - address % 32) % 32 / sizeof(T);
  }
  std::vector<T> storage;
  T* data;
};

struct Layouts {
  const char* entry;
  int M, N, K;
  bool a_row, b_row;
};

// Multiples of 1/8 in [-1, 1]: every product and sum of a 16-long dot product is exact in float.
float small_value(int i) { return static_cast<float>((i * 37 + 11) % 17 - 8) / 8.0f; }

}  // namespace

TEST_CASE("emu wmma: one warp's tile product in every shape, inputs in either layout, is exact on small values") {
  for (const Layouts l : {Layouts{"product_16x16x16_row_col", 16, 16, 16, true, false},
                          Layouts{"product_16x16x16_col_row", 16, 16, 16, false, true},
                          Layouts{"product_32x8x16_row_row", 32, 8, 16, true, true},
                          Layouts{"product_8x32x16_col_col", 8, 32, 16, false, false}}) {
    CAPTURE(l.entry);
    const EmuModule m = build("wmma.cu", l.entry, kProductTypes);
    // Leading dimensions with padding beyond the tile, multiples of 8 elements (16 bytes).
    int lda = (l.a_row ? l.K : l.M) + 8, ldb = (l.b_row ? l.N : l.K) + 8, ldc = l.M + 4;
    Aligned<std::uint16_t> a(static_cast<std::size_t>(lda) * (l.a_row ? l.M : l.K));
    Aligned<std::uint16_t> b(static_cast<std::size_t>(ldb) * (l.b_row ? l.K : l.N));
    Aligned<float> c(static_cast<std::size_t>(ldc) * l.N);
    Aligned<float> d(static_cast<std::size_t>(l.M) * l.N);
    auto a_at = [&](int r, int k) -> std::uint16_t& { return a.data[l.a_row ? r * lda + k : k * lda + r]; };
    auto b_at = [&](int k, int n) -> std::uint16_t& { return b.data[l.b_row ? k * ldb + n : n * ldb + k]; };
    for (int r = 0; r < l.M; ++r)
      for (int k = 0; k < l.K; ++k) a_at(r, k) = float_to_bf16(small_value(r * 31 + k));
    for (int k = 0; k < l.K; ++k)
      for (int n = 0; n < l.N; ++n) b_at(k, n) = float_to_bf16(small_value(k * 7 + n * 13 + 5));
    for (int r = 0; r < l.M; ++r)
      for (int n = 0; n < l.N; ++n) c.data[n * ldc + r] = small_value(r + n * 3) * 4.0f;

    float* pd = d.data;
    const void* pa = a.data;
    const void* pb = b.data;
    const float* pc = c.data;
    auto args_ = args(pd, pa, pb, pc, lda, ldb, ldc);
    m.launch(dims({1, 1, 1}, {32, 1, 1}), args_.data());
    for (int r = 0; r < l.M; ++r)
      for (int n = 0; n < l.N; ++n) {
        double want = c.data[n * ldc + r];
        for (int k = 0; k < l.K; ++k) want += static_cast<double>(bf16_to_float(a_at(r, k))) * bf16_to_float(b_at(k, n));
        CAPTURE(r);
        CAPTURE(n);
        CHECK(d.data[r * l.N + n] == static_cast<float>(2.0 * want));
      }
  }
}

TEST_CASE("emu wmma: a divergent mma, lane-dependent or misaligned pointers, a bad leading dimension and a partial warp are faults") {
  const EmuModule m = build("wmma.cu", "misuse", {"float*", "const __nv_bfloat16*", "int"});
  Aligned<std::uint16_t> a(16 * 32);
  Aligned<float> d(256);
  for (int i = 0; i < 16 * 32; ++i) a.data[i] = float_to_bf16(small_value(i));
  float* pd = d.data;
  const void* pa = a.data;
  int how = 0;
  auto a_ = args(pd, pa, how);
  CHECK(fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a_.data()).empty());

  how = 1;
  std::string why = fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a_.data());
  INFO(why);
  CHECK(has(why, "wmma::mma_sync"));
  how = 2;
  why = fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a_.data());
  CHECK(has(why, "different pointers"));
  how = 3;
  why = fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a_.data());
  CHECK(has(why, "32-byte aligned"));
  how = 4;
  why = fault_of(m, dims({1, 1, 1}, {64, 1, 1}), a_.data());
  CHECK(has(why, "multiple of 16 bytes"));
  how = 0;
  why = fault_of(m, dims({1, 1, 1}, {48, 1, 1}), a_.data());
  CHECK(has(why, "partial"));
}

TEST_CASE("emu wmma: the same source compiles with NVRTC for sm_90 into tensor-core instructions") {
  const NvrtcResult r = nvrtc_compile({read_kernel("wmma.cu"), "wmma.cu", "sm_90", {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  std::size_t mmas = 0;
  for (std::size_t at = 0; (at = r.ptx.find("wmma.mma.sync", at)) != std::string::npos; ++at) ++mmas;
  CHECK(mmas >= 5);  // one per product kernel and the misuse kernel
  CHECK(has(r.ptx, "m16n16k16"));
  CHECK(has(r.ptx, "m32n8k16"));
  CHECK(has(r.ptx, "m8n32k16"));
}
