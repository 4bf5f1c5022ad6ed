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
  // A row of blocks is drawn once into a buffer; a row of blocks larger than 2^24 weights (a
  // per-tensor scale over a whole layer) is drawn twice, row by row, from the same stream: once
  // for its amax, once to quantize.
  const bool buffered = std::min(N, bn) * K <= (std::int64_t{1} << 24);
  std::vector<float> drawn(static_cast<std::size_t>(buffered ? std::min(N, bn) * K : K));
  for (std::int64_t n0 = 0; n0 < N; n0 += bn) {
    const std::int64_t rows = std::min(N, n0 + bn) - n0;
    auto row = [&](std::int64_t r) { return drawn.data() + (buffered ? r * K : 0); };
    const Rng start = *call.rng;
    std::fill(amax.begin(), amax.end(), 0.0);
    for (std::int64_t r = 0; r < rows; ++r) {
      float* v = row(r);
      quant_draws::fill_normal(*call.rng, v, static_cast<std::size_t>(K));
      // Block by block along the row, so that no element needs a division to find its block.
      for (std::int64_t b = 0, k0 = 0; k0 < K; ++b, k0 += bk) {
        float m = 0.f;
        for (std::int64_t k = k0; k < std::min(K, k0 + bk); ++k) m = std::fmax(m, std::fabs(v[k]));
        amax[static_cast<std::size_t>(b)] = std::fmax(amax[static_cast<std::size_t>(b)], m);
      }
    }
    if (!buffered) *call.rng = start;
    for (std::int64_t r = 0; r < rows; ++r) {
      float* v = row(r);
      if (!buffered) quant_draws::fill_normal(*call.rng, v, static_cast<std::size_t>(K));
      for (std::int64_t b = 0, k0 = 0; k0 < K; ++b, k0 += bk) {
        const double scale = 448.0 / amax[static_cast<std::size_t>(b)];
        for (std::int64_t k = k0; k < std::min(K, k0 + bk); ++k)
          codes[(n0 + r) * K + k] = float_to_e4m3(static_cast<float>(v[k] * scale));
      }
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
