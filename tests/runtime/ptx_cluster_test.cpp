// ptx_cluster_dims: the cluster an entry was compiled for, from the directives of its PTX.
#include <doctest/doctest.h>

#include "runtime/nvrtc_compiler.hpp"
#include "runtime/ptx_cluster.hpp"

using namespace hone;

TEST_CASE("ptx cluster: the entry's .reqnctapercluster, not another entry's") {
  const std::string ptx =
      ".visible .entry plain(\n\t.param .u64 plain_param_0\n)\n.maxntid 64, 1, 1\n{\n\tret;\n}\n"
      ".visible .entry paired(\n\t.param .u64 paired_param_0\n)\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n\tret;\n}\n"
      ".visible .entry paired_wide(\n)\n.reqnctapercluster 4, 2, 1\n{\n}\n";
  CHECK(ptx_cluster_dims(ptx, "plain") == std::array<unsigned, 3>{1, 1, 1});
  CHECK(ptx_cluster_dims(ptx, "paired") == std::array<unsigned, 3>{2, 1, 1});
  CHECK(ptx_cluster_dims(ptx, "paired_wide") == std::array<unsigned, 3>{4, 2, 1});
  CHECK(ptx_cluster_dims(ptx, "missing") == std::array<unsigned, 3>{1, 1, 1});
}

TEST_CASE("ptx cluster: dims spelled through a macro and a constant reach the PTX NVRTC writes") {
  const std::string src =
      "constexpr int kSplit = 4;\n"
      "#define SPLIT_KERNEL(name) extern \"C\" __global__ void __cluster_dims__(kSplit, 1, 1) name(float* p) { p[0] = 1.f; }\n"
      "SPLIT_KERNEL(by_macro)\n";
  const NvrtcResult r = nvrtc_compile({src, "by_macro.cu", "sm_90", {}});
  REQUIRE_MESSAGE(r.ok, r.log);
  CHECK(ptx_cluster_dims(r.ptx, "by_macro") == std::array<unsigned, 3>{4, 1, 1});
}
