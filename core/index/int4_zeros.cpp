// Packed INT4 zero points: eight 4-bit zero points per 32-bit word. Typical: each one 0..15 alike,
// as asymmetric checkpoints have them, so that a kernel that assumes 8 is wrong almost everywhere.
// The adversarial mode is the symmetric checkpoint: 8 everywhere.
#include "core/index/quant_draws.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  for (std::size_t i = 0; i < out.count; ++i)
    quant_draws::store_word(out, i, call.mode == "symmetric" ? 0x88888888u : static_cast<std::uint32_t>(call.rng->next() >> 32));
}

}  // namespace

extern const IndexGenerator kInt4ZerosGenerator{
    .kind = "int4_zeros",
    .summary = "[rows, cols] i32 words of eight 4-bit zero points, each 0..15 alike (mode symmetric: all 8)",
    .rank = 2,
    .params = {},
    .modes = {"symmetric"},
    .generate = generate,
    .items = nullptr,
    .offers = nullptr,
    .dtypes = {DType::i32},
};

}  // namespace hone
