#include <doctest/doctest.h>

#include <set>

#include "core/paths.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

TEST_CASE("template space: rmsnorm has at least 8 valid configurations at a typical shape") {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  auto space = template_space(op, {{"tokens", 64}, {"hidden", 4096}});
  CHECK(space.size() >= 8);
  for (const auto& p : space) CHECK(p.variant->space.satisfies(p.config, {{"hidden", 4096}}));
}

TEST_CASE("render: the wrapper keeps the op's signature and instantiates the configuration") {
  OpSpec op = load_op(templates_root(), "rmsnorm");
  const Variant& v = op.variants.at(0);
  Candidate c = render_template(op, v, {{"BLOCK", 256}, {"VEC", 8}}, {{"tokens", 7}, {"hidden", 4096}});
  CHECK(c.entry == "rmsnorm_row_block_256_8_4096");
  CHECK(c.source.find("extern \"C\" __global__ void __launch_bounds__(256) rmsnorm_row_block_256_8_4096("
                      "__nv_bfloat16* out, const __nv_bfloat16* x, const __nv_bfloat16* w, int tokens, int hidden, float eps)") !=
        std::string::npos);
  CHECK(c.source.find("rmsnorm_row_block<256, 8, 4096>(out, x, w, tokens, hidden, eps);") != std::string::npos);
  // Local includes are inlined: the candidate is one self-contained translation unit.
  CHECK(c.source.find("#include \"") == std::string::npos);
  CHECK(c.source.find("struct alignas(2 * VEC) Bf16Pack") != std::string::npos);
  CHECK(c.launch.block[0].text() == "256");
  CHECK(c.launch.grid[0].text() == "tokens");
  CHECK(c.key() != render_template(op, v, {{"BLOCK", 128}, {"VEC", 8}}, {{"tokens", 7}, {"hidden", 4096}}).key());
}

TEST_CASE("template space: a 'when' over a parameter keeps some configurations of a variant out of a task, not the variant") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const auto mts = [&](std::int64_t m) {
    std::set<std::int64_t> seen;
    for (const TemplatePoint& p : template_space(op, {{"M", m}, {"N", 4096}, {"K", 4096}}))
      if (p.variant->name == "gemv_warp_rows") seen.insert(p.config.at("MT"));
    return seen;
  };
  // At one token a tile of MT rows of x computes MT - 1 duplicate rows and reads w no less.
  CHECK(mts(1) == std::set<std::int64_t>{1});
  CHECK(mts(2) == std::set<std::int64_t>{1, 4, 8});
}

TEST_CASE("template space: a variant over thread-block clusters exists from sm_90 on, whole clusters only, its entry declaring them") {
  const OpSpec op = load_op(templates_root(), "gemv");
  const Bindings router = {{"M", 1}, {"N", 512}, {"K", 2048}};
  const auto split_k = [&](const std::string& arch) {
    std::vector<TemplatePoint> out;
    for (const TemplatePoint& p : template_space(op, router, arch))
      if (p.variant->name == "gemv_split_k") out.push_back(p);
    return out;
  };
  CHECK(split_k("sm_80").empty());
  const auto points = split_k("sm_90");
  REQUIRE_FALSE(points.empty());
  for (const TemplatePoint& p : points) {
    const Candidate c = render_template(op, *p.variant, p.config, router);
    const LaunchDims d = c.launch.eval(router);
    CHECK(d.grid[0] % p.config.at("KS") == 0);
    CHECK(c.source.find("__cluster_dims__(" + std::to_string(p.config.at("KS")) + ") " + c.entry + "(") != std::string::npos);
  }
  // Where the rows alone fill the GPU, no split: lm_head's 151936 rows.
  CHECK(template_space(op, {{"M", 1}, {"N", 151936}, {"K", 4096}}).size() ==
        template_space(op, {{"M", 1}, {"N", 151936}, {"K", 4096}}, "sm_80").size());
}
