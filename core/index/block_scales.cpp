// Dequantization scales `[R, C]`, one per block of `block` weights, as a quantizer computes them
// from weights drawn normal: amax / levels (FP8: levels 448; symmetric INT4: 7), or with
// `asymmetric` (max - min) / levels (INT4 with zero points: 15). The weights' std is 0.02 times a
// factor log-uniform in [0.5, 2] per scale row, as output channels of a layer differ; the block's
// extremes are drawn from the distribution of the largest of `block` draws. The adversarial mode
// spreads the scales further, by a factor log-uniform in [1/64, 64] per block, so that a kernel
// that reads one block's scale for another's is far off.
#include "core/index/quant_draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t R = call.extents.at(0), C = call.extents.at(1);
  const std::int64_t block = call.param("block"), levels = call.param("levels");
  const bool asymmetric = call.param("asymmetric") != 0;
  if (block < 2 || levels <= 0)
    throw InputError("block_scales: blocks of " + std::to_string(block) + " weights (at least 2) and " + std::to_string(levels) +
                     " levels (at least 1)");
  for (std::int64_t r = 0; r < R; ++r) {
    const double row_std = 0.02 * std::exp(std::log(0.5) + std::log(4.0) * call.rng->uniform());
    for (std::int64_t c = 0; c < C; ++c) {
      double range = asymmetric ? quant_draws::max_normal(block, call.rng->uniform()) + quant_draws::max_normal(block, call.rng->uniform())
                                : quant_draws::max_abs_normal(block, call.rng->uniform());
      if (call.mode == "wide") range *= std::exp(std::log(1.0 / 64) + std::log(4096.0) * call.rng->uniform());
      out.set(static_cast<std::size_t>(r * C + c), row_std * range / static_cast<double>(levels));
    }
  }
}

}  // namespace

extern const IndexGenerator kBlockScalesGenerator{
    .kind = "block_scales",
    .summary = "[R, C] positive scales, one per block of `block` normal weights: amax / `levels`, or (max - min) / "
               "`levels` when `asymmetric` is 1; weight std 0.02 times 0.5..2 per row",
    .rank = 2,
    .params = {{"block", false, ""}, {"levels", false, ""}, {"asymmetric", false, "0"}},
    .modes = {"wide"},
    .generate = generate,
    .items = nullptr,
    .offers = nullptr,
    .dtypes = {DType::f32, DType::bf16},
};

}  // namespace hone
