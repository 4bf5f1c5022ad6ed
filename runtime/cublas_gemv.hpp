#pragma once
// The gemv op's contract, out[m,n] = sum_k x[m,k] * w[n,k] (all row-major, w is [N,K]), as one
// cublasGemmEx call. cuBLAS is column-major, so the row-major out [M,N] is the column-major
// out^T (N x M, ldc = N); w's rows are K-contiguous, a column-major K x N matrix that op = T
// turns into the N x K left operand (lda = K); x is a column-major K x M matrix, the right
// operand as it is (op = N, ldb = K). bf16 in and out, fp32 accumulation.
#include <cublas_api.h>

#include <cstdint>

#include "runtime/cublas_library.hpp"

namespace hone {

/// The entry of the kernel image the cuda device runs as this cublasGemmEx call: it has no code,
/// and takes gemv's arguments (out, x, w, M, N, K) like the op's kernels.
inline constexpr const char* kCublasGemvEntry = "vendor:cublas:gemv";

/// The arguments of cublasGemmEx other than the pointers and scalars.
struct GemmExShape {
  cublasOperation_t transa, transb;
  int m, n, k;
  int lda, ldb, ldc;
  cudaDataType a_type, b_type, c_type;
  cublasComputeType_t compute_type;
  cublasGemmAlgo_t algo;
};

/// The call that computes gemv at M, N, K. Throws InputError for a non-positive size or one past
/// cuBLAS's int arguments.
GemmExShape gemv_gemm_ex_shape(std::int64_t M, std::int64_t N, std::int64_t K);

/// One cuBLAS handle bound to a stream, destroyed with the object. Device pointers in, on the
/// stream: the call is asynchronous like a kernel launch, so it is timed the same way.
class CublasGemv {
 public:
  CublasGemv(const CublasLibrary& library, CUstream_st* stream);
  ~CublasGemv();
  CublasGemv(const CublasGemv&) = delete;
  CublasGemv& operator=(const CublasGemv&) = delete;

  /// out = x * w^T at M, N, K (bf16 buffers of M*N, M*K and N*K elements).
  void run(std::int64_t M, std::int64_t N, std::int64_t K, void* out, const void* x, const void* w) const;

 private:
  const CublasLibrary& library_;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace hone
