// FP8 (e4m3) weight codes `[N, K]` as a checkpoint quantized in blocks of `rows` x `cols` holds
// them: each block's weights are normal, divided by the block's scale amax / 448 and rounded to
// e4m3, so the block's largest code is +-448 and every code is finite. The adversarial mode
// draws every finite code alike (zeros of both signs, subnormals, +-448).
#include <algorithm>
#include <vector>

#include "core/index/quant_draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t N = call.extents.at(0), K = call.extents.at(1);
  const std::int64_t bn = call.param("rows"), bk = call.param("cols");
  if (bn <= 0 || bk <= 0) throw InputError("e4m3_weights: a block of " + std::to_string(bn) + " x " + std::to_string(bk) + " weights");
  auto* codes = out.bytes.data();
  if (call.mode == "all_codes") {
    for (std::int64_t i = 0; i < N * K; ++i) {
      auto c = static_cast<unsigned>(call.below(254));  // 256 codes less the NaNs 0x7f and 0xff
      if (c >= 0x7f) ++c;
      codes[i] = static_cast<unsigned char>(c);
    }
    return;
  }
  const std::int64_t blocks_k = (K + bk - 1) / bk;
  std::vector<double> amax(static_cast<std::size_t>(blocks_k));
  for (std::int64_t n0 = 0; n0 < N; n0 += bn) {
    const std::int64_t n1 = std::min(N, n0 + bn);
    // Two passes over one stream: the first finds each block's amax, the second draws the same
    // values again and quantizes them (no buffer of a whole block row of doubles).
    const Rng start = *call.rng;
    std::fill(amax.begin(), amax.end(), 0.0);
    for (std::int64_t n = n0; n < n1; ++n)
      for (std::int64_t k = 0; k < K; ++k) {
        double& a = amax[static_cast<std::size_t>(k / bk)];
        a = std::fmax(a, std::fabs(call.rng->normal(0, 1)));
      }
    *call.rng = start;
    for (std::int64_t n = n0; n < n1; ++n)
      for (std::int64_t k = 0; k < K; ++k) {
        const double v = call.rng->normal(0, 1) * 448.0 / amax[static_cast<std::size_t>(k / bk)];
        codes[n * K + k] = float_to_e4m3(static_cast<float>(v));
      }
  }
}

}  // namespace

extern const IndexGenerator kE4m3WeightsGenerator{
    .kind = "e4m3_weights",
    .summary = "[N, K] fp8 e4m3 weight codes quantized in blocks of `rows` x `cols` by amax / 448: normal within a "
               "block, its largest code +-448, every code finite",
    .rank = 2,
    .params = {{"rows", false, ""}, {"cols", false, ""}},
    .modes = {"all_codes"},
    .generate = generate,
    .items = nullptr,
    .offers = nullptr,
    .dtypes = {DType::fp8},
};

}  // namespace hone
