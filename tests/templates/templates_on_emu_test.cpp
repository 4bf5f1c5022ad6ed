// Every op family on the emu device, through the real worker: its reference runs, and its variant
// templates agree with it within the spec's tolerance and without bias, at a small shape of each
// family (the quantized ones at each weight layout). Up to 12 configurations per family and
// shape, spread evenly over each variant's space, every variant represented; with
// HONE_TEMPLATES_ON_EMU_ALL=1, every configuration (minutes).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "core/paths.hpp"
#include "runtime/emu_compiler.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "tuner/template_proposer.hpp"
#include "validator/worker.hpp"

using namespace hone;

namespace {

// Small shapes inside every variant's constraints, with a few rows and heads left over; the
// quantized families also at their other layouts (per-channel FP8 scales, one INT4 group a row).
const std::map<std::string, std::vector<Bindings>> kShapes = {
    {"rmsnorm", {{{"tokens", 3}, {"hidden", 256}}}},
    {"fused_add_rmsnorm", {{{"tokens", 3}, {"hidden", 256}}}},
    {"silu_mul", {{{"tokens", 3}, {"inter", 1024}}}},
    // and a batch past one tensor-core tile, the last tile partial
    {"gemv", {{{"M", 2}, {"N", 64}, {"K", 1024}}, {{"M", 20}, {"N", 48}, {"K", 1024}}}},
    // and on tensor cores: per-channel scales applied once, and two blocks along K a partial tile
    {"gemv_fp8",
     {{{"M", 3}, {"N", 40}, {"K", 1040}, {"BN", 16}, {"BK", 128}}, {{"M", 9}, {"N", 32}, {"K", 2048}, {"BN", 1}, {"BK", 2048}},
      {{"M", 20}, {"N", 48}, {"K", 256}, {"BN", 16}, {"BK", 128}}}},
    {"gemv_w4",
     {{{"M", 3}, {"N", 48}, {"K", 1024}, {"G", 128}}, {{"M", 2}, {"N", 16}, {"K", 1024}, {"G", 1024}},
      {{"M", 1}, {"N", 16}, {"K", 2048}, {"G", 128}},  // and K long enough for a split over a cluster
      // and on tensor cores: three groups scaled per column, the last row tile partial
      {{"M", 20}, {"N", 64}, {"K", 384}, {"G", 128}}}},
    {"gdn_decode", {{{"B", 1}, {"H", 1}, {"HV", 2}, {"K", 128}, {"V", 128}}}},
    // partial rotary (ROT < D), and qk_norm_rope with Qwen3-Next's gated q heads (QH = 2*D)
    {"rope", {{{"tokens", 3}, {"HQ", 4}, {"HKV", 2}, {"D", 64}, {"ROT", 32}, {"MAXPOS", 50}}}},
    {"qk_norm_rope", {{{"tokens", 3}, {"HQ", 4}, {"HKV", 2}, {"D", 64}, {"QH", 128}, {"ROT", 32}, {"MAXPOS", 50}}}},
    {"attention_decode", {{{"batch", 3}, {"HQ", 8}, {"HKV", 2}, {"D", 64}, {"PAGE", 16}, {"MAXP", 4}, {"q_stride", 768}, {"page_stride", 2048}}}},
    // Qwen3-Next's layers: state pools a few slots larger than the batch, so that slots skip
    {"causal_conv1d_update", {{{"B", 3}, {"D", 256}, {"W", 4}, {"SLOTS", 7}}}},
    {"gdn_gated_decode", {{{"B", 2}, {"H", 1}, {"HV", 2}, {"K", 128}, {"V", 128}, {"SLOTS", 5}}}},
    {"rmsnorm_gated", {{{"rows", 5}, {"D", 128}}}},
    {"moe_topk_softmax", {{{"tokens", 3}, {"E", 64}, {"TOPK", 4}, {"renormalize", 1}}}},
    {"moe_gate_up", {{{"tokens", 3}, {"E", 16}, {"TOPK", 4}, {"N", 64}, {"K", 256}}}},
    {"moe_down", {{{"tokens", 3}, {"E", 16}, {"TOPK", 4}, {"N", 64}, {"K", 256}}}},
};
// HONE_TEMPLATES_ONLY=a,b: only these families; HONE_TEMPLATES_VARIANTS=v,w: only these variants
// (while writing one).
bool listed(const char* variable, const std::string& name) {
  const char* only = std::getenv(variable);
  if (!only || !*only) return true;
  return ("," + std::string(only) + ",").find("," + name + ",") != std::string::npos;
}
bool selected(const std::string& family) { return listed("HONE_TEMPLATES_ONLY", family); }
bool every_variant() {
  const char* only = std::getenv("HONE_TEMPLATES_VARIANTS");
  return !only || !*only;
}
std::size_t per_family() {
  const char* all = std::getenv("HONE_TEMPLATES_ON_EMU_ALL");
  return all && std::string(all) == "1" ? std::numeric_limits<std::size_t>::max() : 12;
}

// An even spread of each variant's configurations, at most `limit` in all.
std::vector<TemplatePoint> sample(const std::vector<TemplatePoint>& space, std::size_t limit) {
  std::map<const Variant*, std::vector<TemplatePoint>> by_variant;
  for (const auto& p : space) by_variant[p.variant].push_back(p);
  const std::size_t quota = std::max<std::size_t>(1, limit / std::max<std::size_t>(1, by_variant.size()));
  std::vector<TemplatePoint> out;
  for (const auto& [variant, points] : by_variant) {
    const std::size_t take = std::min(quota, points.size());
    for (std::size_t i = 0; i < take; ++i) out.push_back(points[i * points.size() / take]);
  }
  return out;
}

struct Built {
  EmuBuild emu;
  std::string ptx;  // for a kernel over clusters, whose dims emu reads from the PTX as a job's build does
};

// Builds every candidate for the emu device, on all cores.
std::vector<Built> build_all(const std::vector<Candidate>& candidates, const OpSpec& op) {
  std::vector<Built> builds(candidates.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    threads.emplace_back([&] {
      for (std::size_t i; (i = next++) < candidates.size();) {
        builds[i].emu = compile_for_emu({candidates[i].source, candidates[i].entry, kernel_param_types(op), 900});
        if (candidates[i].source.find("__cluster_dims__") != std::string::npos)
          builds[i].ptx = nvrtc_compile({candidates[i].source, candidates[i].entry + ".cu", "sm_90", {}}).ptx;
      }
    });
  for (auto& t : threads) t.join();
  return builds;
}

KernelUnderTest under_test(const Candidate& c, const Built& b) {
  KernelUnderTest k;
  k.image.entry = c.entry;
  k.image.emu_object = b.emu.shared_object;
  k.image.emu_invoke = b.emu.invoke_symbol;
  k.image.ptx = b.ptx;
  k.launch = c.launch;
  return k;
}

}  // namespace

TEST_CASE("templates: every family's reference and variants agree on the emu device, through the worker") {
  const auto families = list_op_families(templates_root());
  REQUIRE(families.size() >= 4);
  Worker worker({"emu", "sm_90", 120, {}});
  std::size_t accepted = 0;
  double worst_bias = 0;  // the largest unbiased-error statistic over its bound, of every configuration
  std::string worst_bias_of;
  for (const auto& name : families) {
    if (!selected(name)) continue;
    CAPTURE(name);
    REQUIRE_MESSAGE(kShapes.count(name), "no small shape for family " << name << " in this test");
    const OpSpec op = load_op(templates_root(), name);
    std::set<std::string> variants_in_space;  // over the family's shapes (a variant's "when" may leave one out)
    for (const Bindings& shape : kShapes.at(name)) {
      std::string shape_text;
      for (const auto& [k, v] : shape) shape_text += (shape_text.empty() ? "" : ",") + k + "=" + std::to_string(v);
      CAPTURE(shape_text);
      auto space = template_space(op, shape);
      std::erase_if(space, [](const TemplatePoint& p) { return !listed("HONE_TEMPLATES_VARIANTS", p.variant->name); });
      const auto points = sample(space, per_family());
      std::set<std::string> in_space, variants_run;
      for (const auto& p : space) in_space.insert(p.variant->name);
      variants_in_space.insert(in_space.begin(), in_space.end());

      std::vector<Candidate> candidates{reference_candidate(op)};
      for (const auto& p : points) candidates.push_back(render_template(op, *p.variant, p.config, shape));
      const std::vector<Built> builds = build_all(candidates, op);
      for (std::size_t i = 0; i < builds.size(); ++i) REQUIRE_MESSAGE(builds[i].emu.ok, candidates[i].label() << ":\n" << builds[i].emu.log);

      const KernelUnderTest reference = under_test(candidates[0], builds[0]);
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        CAPTURE(candidates[i].label());
        EvaluationRequest r;
        r.spec_dir = op.dir;
        r.shape = shape;
        r.reference = reference;
        r.candidate = under_test(candidates[i], builds[i]);
        r.seeds = {1, 2};
        r.time = false;
        const Verdict v = worker.evaluate(r);
        CHECK_MESSAGE(v.pass, v.stage << ": " << v.reason);
        if (i > 0) variants_run.insert(candidates[i].variant);
        if (i > 0 && v.pass) ++accepted;
        const double ratio = v.detail.contains("error_bias") ? v.detail["error_bias"].value("ratio", 0.0) : 0.0;
        if (ratio > worst_bias) {
          worst_bias = ratio;
          worst_bias_of = candidates[i].label() + " (" + v.detail["error_bias"].dump() + ")";
        }
      }
      CHECK(variants_run == in_space);
      MESSAGE(name << ": the reference and " << points.size() << " of " << space.size()
                   << " configurations agree with the reference on emu at " << shape_text);
    }
    if (every_variant()) CHECK(variants_in_space.size() == op.variants.size());  // the shapes leave no variant out
  }
  CHECK(worker.started() == 1);  // nothing ended a worker
  CHECK(worst_bias < 1);
  MESSAGE(accepted << " template configurations accepted; the largest unbiased-error statistic is " << worst_bias
                   << " of its bound, by " << worst_bias_of);
}
