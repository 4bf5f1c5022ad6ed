// fused_add_rmsnorm called as vLLM calls its fused_add_rms_norm(input, residual, weight, eps)
// between layers: one hidden-states tensor is both x and out (the normed result replaces the
// layer's output in place), the residual stream is updated in its own tensor. Each variant, on
// the emu device, against the contract computed here in double.
#include <doctest/doctest.h>

#include <cmath>

#include "core/host_tensor.hpp"
#include "core/paths.hpp"
#include "runtime/emu_device.hpp"
#include "support/emu_image.hpp"
#include "tuner/template_proposer.hpp"

using namespace hone;

namespace {

std::vector<std::uint16_t> bf16_values(std::size_t n, double mean, double std, Rng& rng) {
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = float_to_bf16(static_cast<float>(rng.normal(mean, std)));
  return v;
}

}  // namespace

TEST_CASE("fused_add_rmsnorm: every variant, in place on vLLM's hidden states and residual, matches the contract") {
  const OpSpec op = load_op(templates_root(), "fused_add_rmsnorm");
  const int tokens = 3, hidden = 2048;
  const Bindings shape{{"tokens", tokens}, {"hidden", hidden}};
  auto device = make_emu_device("sm_90");
  const auto space = template_space(op, shape);
  for (const auto& variant : op.variants) {
    const auto point = std::find_if(space.begin(), space.end(), [&](const TemplatePoint& p) { return p.variant == &variant; });
    REQUIRE(point != space.end());
    const Candidate c = render_template(op, variant, point->config, shape);
    CAPTURE(c.label());
    auto kernel = device->load(test::emu_image(c.source, c.entry, kernel_param_types(op)));

    for (float w_offset : {0.f, 1.f}) {
      CAPTURE(w_offset);
      Rng rng(42);
      const std::size_t n = static_cast<std::size_t>(tokens) * hidden;
      const auto hidden_states = bf16_values(n, 0, 1, rng), residual = bf16_values(n, 0, 1, rng);
      const auto weight = bf16_values(hidden, w_offset ? 0.0 : 1.0, 0.2, rng);
      DeviceBuffer hs(*device, n * 2), res(*device, n * 2), w(*device, hidden * 2);
      device->upload(hs.get(), hidden_states.data(), n * 2);
      device->upload(res.get(), residual.data(), n * 2);
      device->upload(w.get(), weight.data(), hidden * 2);

      void* out_ptr = hs.get();
      void* residual_ptr = res.get();
      const void* x_ptr = hs.get();  // vLLM's input: read as x, overwritten as out
      const void* w_ptr = w.get();
      int t = tokens, h = hidden;
      float eps = 1e-6f, offset = w_offset;
      void* argv[] = {&out_ptr, &residual_ptr, &x_ptr, &w_ptr, &t, &h, &eps, &offset};
      device->launch(*kernel, c.launch.eval(shape), argv);

      std::vector<std::uint16_t> got_out(n), got_residual(n);
      device->download(got_out.data(), hs.get(), n * 2);
      device->download(got_residual.data(), res.get(), n * 2);
      int mismatches = 0;
      for (int r = 0; r < tokens; ++r) {
        double sum_sq = 0;
        std::vector<double> rounded(hidden);
        for (int i = 0; i < hidden; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * hidden + i;
          const std::uint16_t sum = float_to_bf16(bf16_to_float(hidden_states[at]) + bf16_to_float(residual[at]));
          CHECK(got_residual[at] == sum);  // r = bf16(x + residual), bit for bit
          rounded[i] = bf16_to_float(sum);
          sum_sq += rounded[i] * rounded[i];
        }
        const double inv = 1.0 / std::sqrt(sum_sq / hidden + 1e-6);
        for (int i = 0; i < hidden; ++i) {
          const double expected = rounded[i] * inv * (bf16_to_float(weight[i]) + w_offset);
          const double got = bf16_to_float(got_out[static_cast<std::size_t>(r) * hidden + i]);
          mismatches += std::fabs(got - expected) > 0.01 + std::fabs(expected) / 64;
        }
      }
      CHECK(mismatches == 0);
    }
  }
}
