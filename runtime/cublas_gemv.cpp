#include "runtime/cublas_gemv.hpp"

#include <climits>
#include <string>

#include "core/input_error.hpp"

namespace hone {

namespace {

int as_cublas_int(std::int64_t v, const char* name) {
  if (v <= 0 || v > INT_MAX)
    throw InputError(std::string("gemv through cuBLAS: ") + name + " = " + std::to_string(v) + " is outside 1.." +
                     std::to_string(INT_MAX));
  return static_cast<int>(v);
}

}  // namespace

GemmExShape gemv_gemm_ex_shape(std::int64_t M, std::int64_t N, std::int64_t K) {
  const int m = as_cublas_int(M, "M"), n = as_cublas_int(N, "N"), k = as_cublas_int(K, "K");
  return GemmExShape{CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, k, k, n, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT};
}

CublasGemv::CublasGemv(const CublasLibrary& library, CUstream_st* stream) : library_(library) {
  cublas_check(library_.cublasCreate_v2(&handle_), "cublasCreate_v2");
  const cublasStatus_t bound = library_.cublasSetStream_v2(handle_, stream);
  if (bound != CUBLAS_STATUS_SUCCESS) {
    library_.cublasDestroy_v2(handle_);
    cublas_check(bound, "cublasSetStream_v2");
  }
}

CublasGemv::~CublasGemv() { library_.cublasDestroy_v2(handle_); }

void CublasGemv::run(std::int64_t M, std::int64_t N, std::int64_t K, void* out, const void* x, const void* w) const {
  const GemmExShape s = gemv_gemm_ex_shape(M, N, K);
  // fp32 compute takes fp32 scalars.
  const float alpha = 1.0f, beta = 0.0f;
  cublas_check(library_.cublasGemmEx(handle_, s.transa, s.transb, s.m, s.n, s.k, &alpha, w, s.a_type, s.lda, x, s.b_type,
                                     s.ldb, &beta, out, s.c_type, s.ldc, s.compute_type, s.algo),
               "cublasGemmEx");
}

}  // namespace hone
