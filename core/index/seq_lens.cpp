// Sequence lengths of a decode batch (`[batch]`, i32): ragged, the longest at `max` (the bound
// of the context dim's bucket), some rows padded to 0, a length 1 sometimes. Timed launches draw
// every row at `max` (mode `full`), the work a paged kernel's bytes formula counts.
#include <algorithm>

#include "core/index/draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

using index_draws::padded_rows;

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t rows = call.extents.at(0), longest = call.param("max"), page = call.param("page");
  const bool pad = call.param("pad") != 0;
  if (longest < 1) throw InputError("seq_lens: max must be at least 1, it is " + std::to_string(longest));
  if (page < 1) throw InputError("seq_lens: page must be at least 1, it is " + std::to_string(page));
  std::vector<std::int64_t> len(static_cast<std::size_t>(rows));
  const std::int64_t long_row = static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(rows)));
  const auto short_len = [&] { return 1 + static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(std::min<std::int64_t>(longest, 8)))); };

  if (call.mode == "one_long") {
    for (auto& l : len) l = short_len();
  } else if (call.mode == "all_padded_but_one") {
    for (auto& l : len) l = pad ? 0 : 1;
  } else if (call.mode == "full") {
    for (auto& l : len) l = longest;
  } else if (call.mode == "length_one") {
    for (auto& l : len) l = 1;
  } else if (call.mode == "page_edges") {
    // Lengths one below, at and one above a page boundary: where a kernel's last page goes wrong.
    const std::int64_t pages = (longest + page - 1) / page;
    for (auto& l : len) {
      const std::int64_t boundary = page * (1 + static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(pages))));
      l = std::clamp<std::int64_t>(boundary - 1 + static_cast<std::int64_t>(call.below(3)), 1, longest);
    }
  } else {
    for (auto& l : len) l = 1 + static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(longest)));
    const auto pads = pad ? padded_rows(rows, long_row, index_draws::typical_pads(rows), call) : std::set<std::int64_t>{};
    for (auto r : pads) len[static_cast<std::size_t>(r)] = 0;
    // A sequence of length 1 (a request's first decode step), from three rows on.
    for (std::int64_t k = 1; rows >= 3 && k < rows; ++k) {
      const std::int64_t r = (long_row + k) % rows;
      if (pads.count(r)) continue;
      len[static_cast<std::size_t>(r)] = 1;
      break;
    }
  }
  if (call.mode != "length_one") len[static_cast<std::size_t>(long_row)] = longest;
  for (std::size_t i = 0; i < len.size(); ++i) out.set(i, static_cast<double>(len[i]));
}

bool offers(const std::string& mode, const std::map<std::string, std::int64_t>& params) {
  if (mode == "all_padded_but_one") return params.at("pad") != 0;
  if (mode == "page_edges") return params.at("page") > 1;
  return true;
}

}  // namespace

extern const IndexGenerator kSeqLensGenerator{
    .kind = "seq_lens",
    .summary = "[batch] sequence lengths: the longest at `max`, the others ragged, some padded to 0 (unless `pad` is 0), one of length 1",
    .rank = 1,
    .params = {{"max", false, ""}, {"pad", false, "1"}, {"page", false, "1"}},
    .modes = {"one_long", "all_padded_but_one", "length_one", "page_edges", "full"},
    .generate = generate,
    .offers = offers,
};

}  // namespace hone
