// A test double of cuBLAS (libcublas), for machines without a GPU: it exports the four functions
// hone resolves (runtime/cublas_library.hpp) and refuses what the real library documents it
// refuses, so that ctest shows hone's call sequence and its argument mapping. Loaded only by
// tests, by path ($HONE_LIBCUBLAS or load_cublas).
//
// What it models:
//  - handles: cublasCreate_v2 makes one; a null handle, or one already destroyed, is
//    CUBLAS_STATUS_NOT_INITIALIZED in every call;
//  - cublasGemmEx's argument checks: an operation other than N, T or C, a negative size, or a
//    leading dimension below the rows of the matrix as stored is CUBLAS_STATUS_INVALID_VALUE; a
//    type combination other than bf16 A and B, bf16 or fp32 C, with CUBLAS_COMPUTE_32F, is
//    CUBLAS_STATUS_NOT_SUPPORTED (the real library supports more; hone asks for no other);
//  - the arithmetic, on host pointers (the driver double's device memory is host memory): C =
//    alpha op(A) op(B) + beta C in column-major terms, accumulated in double, rounded to C's type,
//    so that a wrong mapping gives a wrong product. Like the real library it is work on the
//    handle's stream: where the driver double ($HONE_LIBCUDA) is loaded in the process, the
//    product is enqueued there with cuLaunchHostFunc and computed when the stream reaches it (in
//    every replay of a captured graph too); without a driver, at the call;
//  - a log of the calls, one line each, read with hone_fake_cublas_calls() and emptied with
//    hone_fake_cublas_clear_calls().
#include <cublas_api.h>
#include <cuda.h>
#include <dlfcn.h>

#include "fake_bf16.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <string>

namespace {

std::mutex state_mutex;
std::set<cublasHandle_t> live_handles;
std::string call_log;

struct FakeHandle {
  cudaStream_t stream = nullptr;
};

bool live(cublasHandle_t h) { return h && live_handles.count(h) != 0; }

const char* op_name(cublasOperation_t op) {
  switch (op) {
    case CUBLAS_OP_N: return "N";
    case CUBLAS_OP_T: return "T";
    case CUBLAS_OP_C: return "C";
    default: return "?";
  }
}

std::string type_name(cudaDataType t) {
  switch (t) {
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_32F: return "CUDA_R_32F";
    default: return "cudaDataType " + std::to_string(static_cast<int>(t));
  }
}

std::string compute_name(cublasComputeType_t t) {
  if (t == CUBLAS_COMPUTE_32F) return "CUBLAS_COMPUTE_32F";
  if (t == CUBLAS_COMPUTE_32F_FAST_16BF) return "CUBLAS_COMPUTE_32F_FAST_16BF";
  return "cublasComputeType_t " + std::to_string(static_cast<int>(t));
}

using hone::fake::bf16_at;
using hone::fake::store_bf16;

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

// One cublasGemmEx, its arguments checked, as the work it leaves on the stream.
struct Product {
  cublasOperation_t transa, transb;
  int m, n, k, lda, ldb, ldc;
  double alpha, beta;
  const void *A, *B;
  void* C;
  cudaDataType c_type;
};
std::deque<Product> enqueued;  // the work a captured graph refers to lives as long as the process

void compute(const Product& p) {
  for (int j = 0; j < p.n; ++j)
    for (int i = 0; i < p.m; ++i) {
      double sum = 0;
      for (int q = 0; q < p.k; ++q) {
        const std::int64_t ai = p.transa == CUBLAS_OP_N ? i + std::int64_t(q) * p.lda : q + std::int64_t(i) * p.lda;
        const std::int64_t bi = p.transb == CUBLAS_OP_N ? q + std::int64_t(j) * p.ldb : j + std::int64_t(q) * p.ldb;
        sum += bf16_at(p.A, ai) * bf16_at(p.B, bi);
      }
      const std::int64_t ci = i + std::int64_t(j) * p.ldc;
      if (p.c_type == CUDA_R_32F) {
        float* c = static_cast<float*>(p.C);
        // beta = 0 ignores C's old contents (it may hold NaN), as BLAS does.
        c[ci] = static_cast<float>(p.alpha * sum + (p.beta != 0 ? p.beta * c[ci] : 0.0));
      } else {
        store_bf16(p.C, ci, static_cast<float>(p.alpha * sum + (p.beta != 0 ? p.beta * bf16_at(p.C, ci) : 0.0)));
      }
    }
}

void CUDA_CB compute_enqueued(void* product) { compute(*static_cast<const Product*>(product)); }

// The driver double's cuLaunchHostFunc when that double is loaded in this process, else null.
using LaunchHostFunc = CUresult (*)(CUstream, CUhostFn, void*);
LaunchHostFunc driver_host_launch() {
  const char* path = std::getenv("HONE_LIBCUDA");
  if (!path || !*path) return nullptr;
  void* driver = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  return driver ? reinterpret_cast<LaunchHostFunc>(dlsym(driver, "cuLaunchHostFunc")) : nullptr;
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  std::lock_guard<std::mutex> lock(state_mutex);
  call_log += "cublasCreate_v2\n";
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = reinterpret_cast<cublasHandle_t>(new FakeHandle);
  live_handles.insert(*handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(state_mutex);
  call_log += std::string("cublasSetStream_v2 stream=") + (stream ? "set" : "default") + "\n";
  if (!live(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  reinterpret_cast<FakeHandle*>(handle)->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  std::lock_guard<std::mutex> lock(state_mutex);
  call_log += "cublasDestroy_v2\n";
  if (!live(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  live_handles.erase(handle);
  delete reinterpret_cast<FakeHandle*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  std::lock_guard<std::mutex> lock(state_mutex);
  call_log += std::string("cublasGemmEx transa=") + op_name(transa) + " transb=" + op_name(transb) +
              " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
              " lda=" + std::to_string(lda) + " ldb=" + std::to_string(ldb) + " ldc=" + std::to_string(ldc) +
              " Atype=" + type_name(Atype) + " Btype=" + type_name(Btype) + " Ctype=" + type_name(Ctype) +
              " compute=" + compute_name(computeType) + " algo=" + std::to_string(static_cast<int>(algo)) + "\n";
  if (!live(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(transa) || !valid_op(transb) || m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  // A is m x k after op: stored m x k (op N) or k x m (op T/C), column-major.
  const int a_rows = transa == CUBLAS_OP_N ? m : k;
  const int b_rows = transb == CUBLAS_OP_N ? k : n;
  if (lda < (a_rows > 1 ? a_rows : 1) || ldb < (b_rows > 1 ? b_rows : 1) || ldc < (m > 1 ? m : 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (computeType != CUBLAS_COMPUTE_32F || Atype != CUDA_R_16BF || Btype != CUDA_R_16BF ||
      (Ctype != CUDA_R_16BF && Ctype != CUDA_R_32F))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (!alpha || !beta || (m && n && k && (!A || !B)) || (m && n && !C)) return CUBLAS_STATUS_INVALID_VALUE;
  const Product product{transa, transb, m, n, k, lda, ldb, ldc, *static_cast<const float*>(alpha),
                        *static_cast<const float*>(beta), A, B, C, Ctype};
  if (const LaunchHostFunc launch = driver_host_launch()) {
    enqueued.push_back(product);
    if (launch(reinterpret_cast<FakeHandle*>(handle)->stream, compute_enqueued, &enqueued.back()) != CUDA_SUCCESS)
      return CUBLAS_STATUS_EXECUTION_FAILED;
  } else {
    compute(product);
  }
  return CUBLAS_STATUS_SUCCESS;
}

const char* hone_fake_cublas_calls() {
  std::lock_guard<std::mutex> lock(state_mutex);
  return call_log.c_str();
}

void hone_fake_cublas_clear_calls() {
  std::lock_guard<std::mutex> lock(state_mutex);
  call_log.clear();
}

}  // extern "C"
