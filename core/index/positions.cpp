// Rotary positions (`[tokens]`, usually i64): each in 0..max-1. Addresses the rows of the
// cos/sin table: item = position.
#include "core/index/draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t limit = call.param("max");
  if (limit < 1) throw InputError("positions: max must be at least 1, it is " + std::to_string(limit));
  const std::int64_t same = static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(limit)));
  for (std::size_t t = 0; t < out.count; ++t) {
    std::int64_t p = static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(limit)));
    if (call.mode == "edges") p = t % 3 == 0 ? 0 : t % 3 == 1 ? limit - 1 : p;  // the table's first and last rows
    if (call.mode == "same") p = same;                                        // every token at one position
    out.set(t, static_cast<double>(p));
  }
}

void items(const IndexCall&, const HostTensor& positions, std::vector<std::int64_t>& out) {
  for (std::size_t t = 0; t < positions.count; ++t) out.push_back(static_cast<std::int64_t>(positions.at(t)));
}

}  // namespace

extern const IndexGenerator kPositionsGenerator{
    .kind = "positions",
    .summary = "[tokens] positions in 0..max-1, at random. Addresses the rows of a cos/sin table: item = position",
    .rank = 1,
    .params = {{"max", false, ""}},
    .modes = {"edges", "same"},
    .generate = generate,
    .items = items,
};

}  // namespace hone
