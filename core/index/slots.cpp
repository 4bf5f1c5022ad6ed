// State slot indices of a batch (`[batch]`, i32), one per row into a pool of `slots` states, as
// engines keep them under continuous batching: distinct within a call, skipping slots, some rows
// padded with a negative slot (no state touched). In a chain of calls about half the rows take a
// slot the previous call used, on another row. Addresses the pool's states: item = slot.
#include <climits>

#include "core/index/draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t rows = call.extents.at(0), pool = call.param("slots");
  const bool pad = call.param("pad") != 0;
  if (pool < rows) throw InputError("slots: a pool of " + std::to_string(pool) + " slots cannot serve " + std::to_string(rows) + " rows");

  // Which rows are padded, and with which negative value.
  const std::int64_t kept = static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(rows)));
  std::int64_t pads = index_draws::typical_pads(rows);
  if (call.mode == "all_padded_but_one") pads = rows - 1;
  if (call.mode == "other_negatives") pads = rows / 2;
  const auto padded = pad ? index_draws::padded_rows(rows, kept, pads, call) : std::set<std::int64_t>{};
  const std::int64_t negatives[] = {-2, -pool, INT_MIN, -1};

  // The slots, in the order rows take them: some of the previous call's first (moved to other
  // rows by the shuffle), then unused ones.
  std::vector<std::int64_t> order;
  std::set<std::int64_t> taken;
  if (call.previous)
    for (std::size_t i = 0; i < call.previous->count; ++i) {
      const auto s = static_cast<std::int64_t>(call.previous->at(i));
      if (s >= 0 && s < pool && call.below(2) == 0 && taken.insert(s).second) order.push_back(s);
    }
  index_draws::shuffle(order, call);
  std::vector<std::int64_t> fresh = index_draws::permutation(pool, call);
  if (call.mode == "reverse") std::sort(fresh.rbegin(), fresh.rend());  // the pool's top slots first, descending
  for (auto s : fresh)
    if (taken.insert(s).second) order.push_back(s);

  std::size_t next = 0, negative = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t s;
    if (padded.count(r)) s = call.mode == "other_negatives" ? negatives[negative++ % 4] : -1;
    else s = order[next++];
    out.set(static_cast<std::size_t>(r), static_cast<double>(s));
  }
}

void items(const IndexCall& call, const HostTensor& slots, std::vector<std::int64_t>& out) {
  for (std::size_t r = 0; r < slots.count; ++r) {
    const auto s = static_cast<std::int64_t>(slots.at(r));
    if (s >= 0 && s < call.param("slots")) out.push_back(s);
  }
}

bool offers(const std::string& mode, const std::map<std::string, std::int64_t>& params) {
  return params.at("pad") != 0 || mode == "reverse";
}

}  // namespace

extern const IndexGenerator kSlotsGenerator{
    .kind = "slots",
    .summary = "[batch] state slots: distinct within a call, skipping, from a pool of `slots`; some rows padded with a "
               "negative slot (unless `pad` is 0); in a chain, slots the previous call used come back on other rows. "
               "Addresses the pool's states: item = slot",
    .rank = 1,
    .params = {{"slots", false, ""}, {"pad", false, "1"}},
    .modes = {"all_padded_but_one", "reverse", "other_negatives"},
    .generate = generate,
    .items = items,
    .offers = offers,
};

}  // namespace hone
