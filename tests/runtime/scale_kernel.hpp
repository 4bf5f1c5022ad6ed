#pragma once
// scale(x, f, n): x[i] *= f, the kernel the cuda device tests load and launch, compiled by NVRTC.
#include <doctest/doctest.h>

#include <string>

#include "runtime/device.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace hone::test {

inline KernelImage scale_kernel_for(const std::string& arch) {
  static const char* source = R"(
extern "C" __global__ void scale(float* x, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
})";
  const NvrtcResult r = nvrtc_compile({source, "scale.cu", arch, {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  return {"scale", {}, "", r.cubin, r.ptx};
}

}  // namespace hone::test
