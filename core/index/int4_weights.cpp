// Packed INT4 weight codes: every 32-bit word holds eight 4-bit codes, each of the 16 values
// alike (a quantized layer uses all of them: the zero point shifts the range onto 0..15).
#include "core/index/quant_draws.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  for (std::size_t i = 0; i < out.count; ++i) quant_draws::store_word(out, i, static_cast<std::uint32_t>(call.rng->next() >> 32));
}

}  // namespace

extern const IndexGenerator kInt4WeightsGenerator{
    .kind = "int4_weights",
    .summary = "[rows, cols] i32 words of eight 4-bit weight codes, every code 0..15 alike",
    .rank = 2,
    .params = {},
    .modes = {},
    .generate = generate,
    .items = nullptr,
    .offers = nullptr,
    .dtypes = {DType::i32},
};

}  // namespace hone
