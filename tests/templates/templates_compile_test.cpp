#include <doctest/doctest.h>

#include <algorithm>
#include <regex>

#include "core/paths.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "support/ptxas.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

// Every op family's reference and configurations spread over its whole space (the first, the last
// and evenly between: every variant's corners), at its example shape, compile with NVRTC for a
// real architecture, and each family offers a real space. Every configuration of a family
// compiles in `hone compile --op FAMILY`; here, with some 1400 of them over 17 families, that
// would take a quarter of an hour on two cores.
TEST_CASE("templates: every family compiles for sm_90 at its example shape") {
  const auto families = list_op_families(templates_root());
  CHECK(families.size() >= 1);
  for (const auto& name : families) {
    CAPTURE(name);
    OpSpec op = load_op(templates_root(), name);
    REQUIRE_MESSAGE(!op.example_shape.empty(), name << " has no example_shape");
    Candidate ref = reference_candidate(op);
    NvrtcResult r = nvrtc_compile({ref.source, ref.entry + ".cu", "sm_90", {}});
    CHECK_MESSAGE(r.ok, r.log);
    CHECK(r.usage.count(ref.entry) == 1);

    auto space = template_space(op, op.example_shape);
    CHECK_MESSAGE(space.size() >= 8, name << " has only " << space.size() << " valid configurations");
    constexpr std::size_t kSpread = 24;
    const std::size_t n = space.size(), count = std::min(n, kSpread);
    for (std::size_t k = 0; k < count; ++k) {
      const auto& p = space[count == 1 ? 0 : k * (n - 1) / (count - 1)];
      Candidate c = render_template(op, *p.variant, p.config, op.example_shape);
      CAPTURE(c.label());
      NvrtcResult cr = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
      CHECK_MESSAGE(cr.ok, cr.log);
      CHECK(cr.usage.count(c.entry) == 1);
    }
  }
}

// `hone compile` reports registers from NVRTC's log; the toolkit's ptxas binary, run on the same
// PTX, must report the same numbers for the first and last configuration of every family.
TEST_CASE("templates: registers and spills agree with the ptxas binary for every family") {
  for (const auto& name : list_op_families(templates_root())) {
    CAPTURE(name);
    OpSpec op = load_op(templates_root(), name);
    auto space = template_space(op, op.example_shape);
    REQUIRE(!space.empty());
    for (const auto* p : {&space.front(), &space.back()}) {
      Candidate c = render_template(op, *p->variant, p->config, op.example_shape);
      CAPTURE(c.label());
      NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
      REQUIRE_MESSAGE(r.ok, r.log);
      const std::string report = test::ptxas_report(r.ptx, "sm_90");
      std::smatch m;
      REQUIRE_MESSAGE(std::regex_search(report, m, std::regex(R"(Used (\d+) registers)")), report);
      CHECK(r.usage.at(c.entry).registers == std::stoi(m[1]));
      REQUIRE(std::regex_search(report, m, std::regex(R"((\d+) bytes spill stores, (\d+) bytes spill loads)")));
      CHECK(r.usage.at(c.entry).spill_stores == std::stoi(m[1]));
      CHECK(r.usage.at(c.entry).spill_loads == std::stoi(m[2]));
    }
  }
}

// The linear families' split-K variants run where N is small (the example shapes' 4096 rows leave
// them out): each entry carries its cluster dims, which NVRTC writes into the PTX (so an engine's
// plain launch gets the cluster), and cooperative_groups compiles (CUDA 13 keeps libcu++ apart).
TEST_CASE("templates: the linear families' split-K over a cluster compiles for sm_90 with its cluster dims in the PTX") {
  const std::vector<std::pair<std::string, Bindings>> routers = {
      {"gemv", {{"M", 1}, {"N", 512}, {"K", 2048}}},
      {"gemv_fp8", {{"M", 1}, {"N", 512}, {"K", 4096}, {"BN", 128}, {"BK", 128}}},
      {"gemv_w4", {{"M", 1}, {"N", 512}, {"K", 4096}, {"G", 128}}}};
  for (const auto& [family, shape] : routers) {
    CAPTURE(family);
    const OpSpec op = load_op(templates_root(), family);
    std::size_t compiled = 0;
    for (const auto& p : template_space(op, shape)) {
      if (p.variant->name != family + "_split_k" || p.config.at("KS") != 4 || compiled) continue;
      const Candidate c = render_template(op, *p.variant, p.config, shape);
      CAPTURE(c.label());
      CHECK(c.source.find("__cluster_dims__(4) " + c.entry + "(") != std::string::npos);
      const NvrtcResult r = nvrtc_compile({c.source, c.entry + ".cu", "sm_90", {}});
      REQUIRE_MESSAGE(r.ok, r.log);
      CHECK(std::regex_search(r.ptx, std::regex(R"(\.reqnctapercluster\s+4,\s*1,\s*1)")));
      ++compiled;
    }
    CHECK(compiled == 1);
  }
}
