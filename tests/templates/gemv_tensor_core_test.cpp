// gemv on tensor cores: the gemv_wmma configurations are in the space at a batch of 64 and
// compile into wmma instructions (the same source the emu device checks through its <mma.h>).
#include <doctest/doctest.h>

#include <string>

#include "core/paths.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("gemv: at M=64 the space holds several hundred configurations, tensor-core ones among them") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const Bindings shape = {{"M", 64}, {"N", 4096}, {"K", 4096}};
  const auto space = template_space(op, shape);
  std::size_t tensor_core = 0;
  for (const auto& p : space) tensor_core += p.variant->name == "gemv_wmma";
  CHECK(space.size() >= 300);
  CHECK(tensor_core >= 50);
}

TEST_CASE("gemv: a gemv_wmma candidate compiles for sm_90 into one wmma.mma per tile product of its unrolled step") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const Bindings shape = {{"M", 64}, {"N", 4096}, {"K", 4096}};
  for (const auto& p : template_space(op, shape)) {
    if (p.variant->name != "gemv_wmma" || p.config.at("MF") != 2 || p.config.at("NF") != 2 || p.config.at("WARPS") != 4 ||
        p.config.at("KC") != 128)
      continue;
    const Candidate c = render_template(op, *p.variant, p.config, shape);
    const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
    REQUIRE_MESSAGE(r.ok, r.log);
    const std::size_t mmas = count_of(r.ptx, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32");
    CAPTURE(mmas);
    CHECK(mmas >= 4);       // MF * NF products per step of 16
    CHECK(mmas % 4 == 0);   // whole steps
    CHECK(count_of(r.ptx, "wmma.load.a.sync") >= 2);
    CHECK(count_of(r.ptx, "wmma.load.b.sync") >= 2);
    CHECK(count_of(r.ptx, "wmma.store.d.sync") >= 1);
    return;
  }
  FAIL("no gemv_wmma configuration with MF=2, NF=2, WARPS=4, KC=128 at M=64, N=K=4096");
}

TEST_CASE("gemv: a gemv_wmma_split candidate loads its U * NF tiles of w and multiplies each step on tensor cores") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const Bindings shape = {{"M", 32}, {"N", 4096}, {"K", 4096}};
  std::size_t in_space = 0;
  for (const auto& p : template_space(op, shape)) in_space += p.variant->name == "gemv_wmma_split";
  CHECK(in_space >= 50);
  for (const auto& p : template_space(op, shape)) {
    if (p.variant->name != "gemv_wmma_split" || p.config.at("MF") != 2 || p.config.at("NF") != 2 || p.config.at("U") != 2 ||
        p.config.at("WARPS") != 8)
      continue;
    const Candidate c = render_template(op, *p.variant, p.config, shape);
    CHECK(c.launch.eval(shape).grid[0] == 4096 / (16 * 2));  // 16 * NF rows of w a block
    const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
    REQUIRE_MESSAGE(r.ok, r.log);
    CHECK(count_of(r.ptx, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32") >= 8);  // MF * NF * U
    const std::size_t b_loads = count_of(r.ptx, "wmma.load.b.sync.aligned.col.m16n16k16");
    CHECK(b_loads == 4);                                               // U * NF from w
    CHECK(count_of(r.ptx, "wmma.load.a.sync.aligned.row.m16n16k16") == 8);  // U * MF, from x or from the slot
    std::size_t last_b = 0;
    for (std::size_t at = 0; (at = r.ptx.find("wmma.load.b", at)) != std::string::npos; ++at) last_b = at;
    CHECK(last_b < r.ptx.find("wmma.mma"));  // every tile of the step is requested before the first product
    return;
  }
  FAIL("no gemv_wmma_split configuration with MF=2, NF=2, U=2, WARPS=8 at M=32, N=K=4096");
}

TEST_CASE("gemv: tensor cores are searched from a batch of 8 (the bucket's upper bound), not at batch 1") {
  const OpSpec op = load_op(templates_root(), "gemv");
  auto tensor_core = [&](std::int64_t M) {
    std::size_t n = 0;
    for (const auto& p : template_space(op, {{"M", M}, {"N", 4096}, {"K", 4096}})) n += p.variant->name == "gemv_wmma";
    return n;
  };
  CHECK(tensor_core(1) == 0);
  CHECK(tensor_core(4) == 0);
  CHECK(tensor_core(8) == 81);
  CHECK(tensor_core(64) == 81);
}


TEST_CASE("gemv_fp8: tensor cores from a batch of 8, at Qwen's 128 x 128 blocks and at per-channel scales") {
  const OpSpec op = load_op(templates_root(), "gemv_fp8");
  auto tensor_core = [&](std::int64_t M, std::int64_t BN, std::int64_t BK) {
    std::size_t n = 0;
    for (const auto& p : template_space(op, {{"M", M}, {"N", 4096}, {"K", 4096}, {"BN", BN}, {"BK", BK}}))
      n += p.variant->name == "gemv_fp8_wmma";
    return n;
  };
  CHECK(tensor_core(4, 128, 128) == 0);
  CHECK(tensor_core(8, 128, 128) > 0);
  CHECK(tensor_core(64, 1, 4096) > tensor_core(64, 128, 128));  // a chunk of 256 columns spans two 128-blocks
  // a 16-row tile must have one scale per block: blocks of 8 rows leave only per-channel layouts
  CHECK(tensor_core(64, 8, 128) == 0);
}

TEST_CASE("gemv_fp8: a gemv_fp8_wmma candidate compiles for sm_90 into wmma on bf16 and an e4m3 pair conversion") {
  const OpSpec op = load_op(templates_root(), "gemv_fp8");
  const Bindings shape = {{"M", 64}, {"N", 4096}, {"K", 4096}, {"BN", 128}, {"BK", 128}};
  for (const auto& p : template_space(op, shape)) {
    if (p.variant->name != "gemv_fp8_wmma" || p.config.at("MF") != 2 || p.config.at("NF") != 1) continue;
    const Candidate c = render_template(op, *p.variant, p.config, shape);
    const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
    REQUIRE_MESSAGE(r.ok, r.log);
    CHECK(count_of(r.ptx, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32") >= 2);
    CHECK(count_of(r.ptx, "cvt.rn.f16x2.e4m3x2") >= 1);
    return;
  }
  FAIL("no gemv_fp8_wmma configuration with MF=2, NF=1 at M=64, N=K=4096, 128 x 128 blocks");
}

TEST_CASE("gemv_w4: tensor cores from a batch of 8, chunks inside a group") {
  const OpSpec op = load_op(templates_root(), "gemv_w4");
  auto tensor_core = [&](std::int64_t M, std::int64_t G) {
    std::size_t n = 0;
    for (const auto& p : template_space(op, {{"M", M}, {"N", 4096}, {"K", 4096}, {"G", G}}))
      n += p.variant->name == "gemv_w4_wmma";
    return n;
  };
  CHECK(tensor_core(4, 128) == 0);
  CHECK(tensor_core(8, 128) >= 40);
  CHECK(tensor_core(64, 4096) > tensor_core(64, 128));  // a chunk of 256 columns needs a group that long
  CHECK(tensor_core(64, 32) < tensor_core(64, 128));    // a group of 32 allows chunks of 32 only
}

TEST_CASE("gemv_w4: a gemv_w4_wmma candidate compiles for sm_90 into wmma on bf16 and paired bf16 subtractions") {
  const OpSpec op = load_op(templates_root(), "gemv_w4");
  const Bindings shape = {{"M", 64}, {"N", 4096}, {"K", 4096}, {"G", 128}};
  for (const auto& p : template_space(op, shape)) {
    if (p.variant->name != "gemv_w4_wmma" || p.config.at("MF") != 2 || p.config.at("NF") != 2 || p.config.at("KC") != 64) continue;
    const Candidate c = render_template(op, *p.variant, p.config, shape);
    const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
    REQUIRE_MESSAGE(r.ok, r.log);
    CHECK(count_of(r.ptx, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32") >= 4);
    CHECK(count_of(r.ptx, "wmma.store.d.sync") >= 4);  // a group's tiles pass through shared memory
    CHECK(count_of(r.ptx, ".bf16x2") >= 1);
    return;
  }
  FAIL("no gemv_w4_wmma configuration with MF=2, NF=2, KC=64 at M=64, N=K=4096, G=128");
}

TEST_CASE("gemv_fp8 and gemv_w4: their splits of K over warps are in the space from a batch of 8 and compile to wmma") {
  struct Family {
    std::string op, variant;
    Bindings shape;
  };
  const Family families[] = {
      {"gemv_fp8", "gemv_fp8_wmma_split", {{"M", 8}, {"N", 4096}, {"K", 4096}, {"BN", 128}, {"BK", 128}}},
      {"gemv_fp8", "gemv_fp8_wmma_split", {{"M", 8}, {"N", 4096}, {"K", 4096}, {"BN", 1}, {"BK", 4096}}},
      {"gemv_w4", "gemv_w4_wmma_split", {{"M", 8}, {"N", 4096}, {"K", 4096}, {"G", 128}}},
  };
  for (const auto& f : families) {
    CAPTURE(f.op);
    const OpSpec op = load_op(templates_root(), f.op);
    Bindings at_one = f.shape;
    at_one["M"] = 4;
    std::size_t below = 0;
    for (const auto& p : template_space(op, at_one)) below += p.variant->name == f.variant;
    CHECK(below == 0);
    std::vector<TemplatePoint> split;
    for (const auto& p : template_space(op, f.shape))
      if (p.variant->name == f.variant) split.push_back(p);
    CHECK(split.size() >= 40);
    std::size_t compiled = 0;
    for (const auto& p : split) {
      if (p.config.at("MF") != 1 || p.config.at("NF") != 2 || p.config.at("U") != 2 || p.config.at("WARPS") != 8) continue;
      const Candidate c = render_template(op, *p.variant, p.config, f.shape);
      const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
      REQUIRE_MESSAGE(r.ok, r.log);
      CHECK(count_of(r.ptx, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32") >= 4);  // MF * NF * U
      CHECK(count_of(r.ptx, "wmma.load.b.sync.aligned.col.m16n16k16") >= 4);                   // from the widened slot
      ++compiled;
    }
    CHECK(compiled == 1);  // MF=1, NF=2, U=2, WARPS=8 is in each space
  }
}
