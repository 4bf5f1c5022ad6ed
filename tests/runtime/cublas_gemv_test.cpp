// gemv through cuBLAS, on the test double of the library (tests/support/fake_libcublas.cpp): the
// loader, the call sequence, and the argument mapping checked by the product it computes against
// gemv's row-major contract accumulated in double.
#include <doctest/doctest.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/input_error.hpp"
#include "runtime/cublas_gemv.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/cuda_driver.hpp"
#include "support/scoped_env.hpp"

namespace {

const hone::CublasLibrary& fake_cublas() {
  static const hone::CublasLibrary library = hone::load_cublas(HONE_FAKE_LIBCUBLAS);
  return library;
}

std::string fake_calls() {
  auto calls = reinterpret_cast<const char* (*)()>(::dlsym(fake_cublas().library, "hone_fake_cublas_calls"));
  REQUIRE(static_cast<bool>(calls));
  return calls();
}

void clear_fake_calls() {
  auto clear = reinterpret_cast<void (*)()>(::dlsym(fake_cublas().library, "hone_fake_cublas_clear_calls"));
  REQUIRE(static_cast<bool>(clear));
  clear();
}

std::vector<std::uint16_t> random_bf16(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> v(n);
  for (auto& e : v) e = hone::float_to_bf16(u(rng));
  return v;
}

// A stream the double only records as set; it never dereferences it.
CUstream_st* const kSomeStream = reinterpret_cast<CUstream_st*>(0x1000);

}  // namespace

TEST_CASE("cublas gemv: the row-major gemv is cublasGemmEx with transa=T, transb=N, m=N, n=M, lda=ldb=K, ldc=N") {
  const hone::GemmExShape s = hone::gemv_gemm_ex_shape(8, 4096, 1024);
  CHECK(s.transa == CUBLAS_OP_T);
  CHECK(s.transb == CUBLAS_OP_N);
  CHECK(s.m == 4096);
  CHECK(s.n == 8);
  CHECK(s.k == 1024);
  CHECK(s.lda == 1024);
  CHECK(s.ldb == 1024);
  CHECK(s.ldc == 4096);
  CHECK(s.a_type == CUDA_R_16BF);
  CHECK(s.b_type == CUDA_R_16BF);
  CHECK(s.c_type == CUDA_R_16BF);
  CHECK(s.compute_type == CUBLAS_COMPUTE_32F);
  CHECK_THROWS_WITH_AS(hone::gemv_gemm_ex_shape(0, 8, 8), doctest::Contains("M = 0 is outside 1..2147483647"), hone::InputError);
  CHECK_THROWS_WITH_AS(hone::gemv_gemm_ex_shape(1, std::int64_t(1) << 31, 8), doctest::Contains("N = 2147483648"),
                       hone::InputError);
}

TEST_CASE("cublas gemv (library double): the call sequence, and out[m,n] = sum_k x[m,k] w[n,k] to bf16 rounding") {
  const std::int64_t M = 3, N = 5, K = 7;
  std::mt19937 rng(18);
  const auto x = random_bf16(M * K, rng), w = random_bf16(N * K, rng);
  std::vector<std::uint16_t> out(M * N, 0x7fc0);  // NaN: beta = 0 must not read it
  clear_fake_calls();
  {
    hone::CublasGemv gemv(fake_cublas(), kSomeStream);
    gemv.run(M, N, K, out.data(), x.data(), w.data());
  }
  CHECK(fake_calls() ==
        "cublasCreate_v2\n"
        "cublasSetStream_v2 stream=set\n"
        "cublasGemmEx transa=T transb=N m=5 n=3 k=7 lda=7 ldb=7 ldc=5 Atype=CUDA_R_16BF Btype=CUDA_R_16BF "
        "Ctype=CUDA_R_16BF compute=CUBLAS_COMPUTE_32F algo=-1\n"
        "cublasDestroy_v2\n");
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      double want = 0;
      for (std::int64_t k = 0; k < K; ++k) want += double(hone::bf16_to_float(x[m * K + k])) * hone::bf16_to_float(w[n * K + k]);
      INFO("out[" << m << "," << n << "]");
      CHECK(hone::bf16_to_float(out[m * N + n]) == doctest::Approx(want).epsilon(1.0 / 256).scale(1e-6));
    }
}

TEST_CASE("cublas gemv (library double): refuses what cuBLAS refuses, so a wrong mapping cannot pass") {
  const auto& c = fake_cublas();
  const float one = 1, zero = 0;
  std::vector<std::uint16_t> a(64), b(64), out(64);
  // A null handle.
  CHECK(c.cublasGemmEx(nullptr, CUBLAS_OP_T, CUBLAS_OP_N, 4, 2, 8, &one, a.data(), CUDA_R_16BF, 8, b.data(), CUDA_R_16BF, 8,
                       &zero, out.data(), CUDA_R_16BF, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) ==
        CUBLAS_STATUS_NOT_INITIALIZED);
  cublasHandle_t h = nullptr;
  REQUIRE(c.cublasCreate_v2(&h) == CUBLAS_STATUS_SUCCESS);
  // w taken as stored (op N) needs lda >= N rows: lda = K = 2 is below N = 8.
  CHECK(c.cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 2, 2, &one, a.data(), CUDA_R_16BF, 2, b.data(), CUDA_R_16BF, 2, &zero,
                       out.data(), CUDA_R_16BF, 8, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);
  // ldc below the m rows of C.
  CHECK(c.cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 8, 2, 2, &one, a.data(), CUDA_R_16BF, 2, b.data(), CUDA_R_16BF, 2, &zero,
                       out.data(), CUDA_R_16BF, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_INVALID_VALUE);
  // bf16 inputs with a 16-bit float compute type.
  CHECK(c.cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 8, 2, 2, &one, a.data(), CUDA_R_16BF, 2, b.data(), CUDA_R_16BF, 2, &zero,
                       out.data(), CUDA_R_16BF, 8, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
  REQUIRE(c.cublasDestroy_v2(h) == CUBLAS_STATUS_SUCCESS);
  // A destroyed handle.
  CHECK(c.cublasSetStream_v2(h, kSomeStream) == CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK_THROWS_WITH_AS(hone::cublas_check(CUBLAS_STATUS_INVALID_VALUE, "cublasGemmEx"),
                       "cublasGemmEx: CUBLAS_STATUS_INVALID_VALUE", hone::CublasError);
}

TEST_CASE("cublas gemv: a missing library, or one without the functions, is CublasUnavailable naming it") {
  CHECK_THROWS_WITH_AS(hone::load_cublas("/nonexistent/libcublas.so.13"), "no cuBLAS (/nonexistent/libcublas.so.13 not found)",
                       hone::CublasUnavailable);
  CHECK_THROWS_WITH_AS(hone::load_cublas(HONE_FAKE_LIBCUDA),
                       (std::string(HONE_FAKE_LIBCUDA) + " is not a usable cuBLAS: it lacks cublasCreate_v2").c_str(),
                       hone::CublasUnavailable);
}

TEST_CASE("cublas gemv (driver and library doubles): the cuda device runs the vendor image as cublasGemmEx on its stream") {
  hone::test::ScopedEnv library{"HONE_LIBCUBLAS", HONE_FAKE_LIBCUBLAS};  // read when the process first loads cuBLAS
  static const hone::CudaDriver driver = hone::init_cuda_driver(HONE_FAKE_LIBCUDA);
  auto device = hone::make_cuda_device(driver, 0);
  int M = 2, N = 3, K = 4;
  std::mt19937 rng(7);
  const auto x = random_bf16(M * K, rng), w = random_bf16(N * K, rng);
  hone::DeviceBuffer dout(*device, 2 * M * N), dx(*device, 2 * M * K), dw(*device, 2 * N * K);
  device->upload(dx.get(), x.data(), 2 * x.size());
  device->upload(dw.get(), w.data(), 2 * w.size());
  clear_fake_calls();
  hone::KernelImage image;
  image.entry = hone::kCublasGemvEntry;
  auto k = device->load(image);
  void *out_p = dout.get(), *x_p = dx.get(), *w_p = dw.get();
  void* args[] = {&out_p, &x_p, &w_p, &M, &N, &K};
  device->launch(*k, hone::LaunchDims{}, args);
  CHECK(fake_calls() ==
        "cublasCreate_v2\n"
        "cublasSetStream_v2 stream=set\n"
        "cublasGemmEx transa=T transb=N m=3 n=2 k=4 lda=4 ldb=4 ldc=3 Atype=CUDA_R_16BF Btype=CUDA_R_16BF "
        "Ctype=CUDA_R_16BF compute=CUBLAS_COMPUTE_32F algo=-1\n");
  std::vector<std::uint16_t> out(M * N);
  device->download(out.data(), dout.get(), 2 * out.size());
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = 0;
      for (int i = 0; i < K; ++i) want += double(hone::bf16_to_float(x[m * K + i])) * hone::bf16_to_float(w[n * K + i]);
      CHECK(hone::bf16_to_float(out[m * N + n]) == doctest::Approx(want).epsilon(1.0 / 256).scale(1e-6));
    }
  k.reset();
  CHECK(fake_calls().find("cublasDestroy_v2\n") != std::string::npos);
  CHECK_FALSE(device->lost());
}

TEST_CASE("cublas gemv: the real library, where the loader finds one, exports the four functions under these names") {
  for (const std::string& name : hone::cublas_library_names()) {
    try {
      const hone::CublasLibrary real = hone::load_cublas(name);
      CHECK(static_cast<bool>(real.cublasCreate_v2));
      CHECK(static_cast<bool>(real.cublasGemmEx));
      return;
    } catch (const hone::CublasUnavailable& e) {
      MESSAGE(e.what());
    }
  }
  MESSAGE("skipped: no cuBLAS on this machine (none of libcublas.so.13, libcublas.so.12 loads)");
}
