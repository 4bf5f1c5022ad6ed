// Launches every rmsnorm entry of a kernel cache through the C++ loader on the GPU, once per
// value of its bucket, and compares the output with a host computation in double.
// Usage: hone_serving_launch_rmsnorm CACHE_DIR [--allow-other-devices]
// Needs a GPU (scripts/gpu-check runs it); device memory comes from the CUDA runtime.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hone/kernel_cache.hpp"

namespace {

std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<std::uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);  // round to nearest even
}

float from_bf16(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

// Max abs error of one launch at (tokens, hidden) against the host result.
double run(const hone::KernelCache& cache, int tokens, int hidden, float eps) {
  auto k = cache.find("rmsnorm", {{"tokens", tokens}, {"hidden", hidden}});
  if (!k) throw std::runtime_error(k.miss_reason());
  std::mt19937 rng(tokens);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<std::uint16_t> x(static_cast<std::size_t>(tokens) * hidden), w(hidden), out(x.size());
  for (auto& v : x) v = to_bf16(dist(rng));
  for (auto& v : w) v = to_bf16(1.f + 0.1f * dist(rng));

  void *dx, *dw, *dout;
  check(cudaMalloc(&dx, x.size() * 2), "cudaMalloc");
  check(cudaMalloc(&dw, w.size() * 2), "cudaMalloc");
  check(cudaMalloc(&dout, out.size() * 2), "cudaMalloc");
  check(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(dw, w.data(), w.size() * 2, cudaMemcpyHostToDevice), "copy w");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  k.launch(stream, dout, static_cast<const void*>(dx), static_cast<const void*>(dw), tokens, hidden, eps);
  check(cudaStreamSynchronize(stream), "kernel");
  check(cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost), "copy out");
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dout);
  cudaStreamDestroy(stream);

  double worst = 0;
  for (int t = 0; t < tokens; ++t) {
    double ss = 0;
    for (int h = 0; h < hidden; ++h) ss += std::pow(from_bf16(x[t * hidden + h]), 2);
    const double inv = 1.0 / std::sqrt(ss / hidden + eps);
    for (int h = 0; h < hidden; ++h) {
      const double want = from_bf16(x[t * hidden + h]) * inv * from_bf16(w[h]);
      const double err = std::fabs(from_bf16(out[t * hidden + h]) - want) / (1.0 + std::fabs(want));
      worst = std::max(worst, err);
    }
  }
  std::printf("rmsnorm tokens=%d hidden=%d: %s %s (%s), max relative error %.3g\n", tokens, hidden, k.entry().entry.c_str(),
              k.image_kind().c_str(), k.entry().arch.c_str(), worst);
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CACHE_DIR [--allow-other-devices]\n", argv[0]);
    return 2;
  }
  try {
    hone::KernelCacheOptions options;
    options.allow_other_devices = argc > 2 && std::string(argv[2]) == "--allow-other-devices";
    check(cudaFree(nullptr), "CUDA init");  // makes the runtime's context current, as an engine would have
    hone::KernelCache cache(argv[1], options);
    int launches = 0;
    bool ok = true;
    for (const auto& e : cache.manifest().entries) {
      if (e.op != "rmsnorm") continue;
      const auto b = e.buckets.at("tokens");
      for (std::int64_t t = b.lo; t <= b.hi; ++t, ++launches)
        ok &= run(cache, static_cast<int>(t), static_cast<int>(e.static_dims.at("hidden")), static_cast<float>(e.scalars.count("eps") ? e.scalars.at("eps") : 1e-6)) < 0.02;
    }
    std::printf("%d launches, %s\n", launches, ok && launches ? "all match the host" : "MISMATCH");
    return ok && launches ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
