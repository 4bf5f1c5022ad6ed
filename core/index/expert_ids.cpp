// The experts each token is routed to (`[tokens, TOPK]`, i32), distinct within a token, in
// 0..experts-1: half of the choices from a few popular experts, so that tokens share experts,
// and, from two tokens on, one token that shares with the first and one (the last, where there
// are experts enough) that shares with no popular expert. Where the spec allows it (`remote` 1),
// some ids lie outside 0..experts-1: experts held by another GPU (-1, as engines' expert maps
// give, or past the last expert); the adversarial mode "remote" has many, and always -1 and
// `experts`. Addresses the experts' weights: item = expert id.
#include "core/index/draws.hpp"
#include "core/input_error.hpp"

namespace hone {

namespace {

void generate(const IndexCall& call, HostTensor& out) {
  const std::int64_t tokens = call.extents.at(0), topk = call.extents.at(1), experts = call.param("experts");
  const bool remote = call.param("remote") != 0;
  if (topk > experts) throw InputError("expert_ids: " + std::to_string(topk) + " experts per token out of " + std::to_string(experts));
  const std::vector<std::int64_t> order = index_draws::permutation(experts, call);
  const std::vector<std::int64_t> popular(order.begin(), order.begin() + topk);
  const bool disjoint = call.mode == "disjoint" && tokens * topk <= experts;

  for (std::int64_t t = 0; t < tokens; ++t) {
    std::set<std::int64_t> chosen;
    std::vector<std::int64_t> ids;
    auto take = [&](std::int64_t e) {
      if (chosen.insert(e).second) ids.push_back(e);
    };
    if (call.mode == "same_experts") {
      for (auto e : popular) take(e);
    } else if (disjoint) {
      for (std::int64_t j = 0; j < topk; ++j) take(order[static_cast<std::size_t>(t * topk + j)]);
    } else {
      const bool loner = tokens >= 3 && t == tokens - 1 && experts >= 2 * topk;
      if (t <= 1) take(popular[0]);  // the first two tokens share at least one expert
      while (static_cast<std::int64_t>(ids.size()) < topk) {
        const bool from_popular = !loner && call.below(2) == 0;
        const std::int64_t e = from_popular ? popular[call.below(static_cast<std::uint64_t>(topk))]
                                            : static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(experts)));
        if (loner && std::find(popular.begin(), popular.end(), e) != popular.end()) continue;
        take(e);
      }
    }
    index_draws::shuffle(ids, call);
    if (remote) {
      // Another GPU's experts: one in eight choices typically, half of them in the "remote" mode.
      const std::uint64_t one_in = call.mode == "remote" ? 2 : 8;
      for (auto& e : ids)
        if (call.below(one_in) == 0) e = call.below(2) ? -1 : experts + static_cast<std::int64_t>(call.below(static_cast<std::uint64_t>(experts)));
    }
    for (std::int64_t j = 0; j < topk; ++j) out.set(static_cast<std::size_t>(t * topk + j), static_cast<double>(ids[static_cast<std::size_t>(j)]));
  }
  if (remote && call.mode == "remote") {
    // Both kinds in every such draw, not by chance (a kernel may mishandle one kind only): -1 and
    // `experts` itself, whose weights would start right at the end of the tensor, where a read
    // hits the device's guard (one far past may land in other memory, zeros as often as not).
    // Where one is missing it takes the first or the last choice, whichever the other is not at.
    const auto last = static_cast<std::size_t>(tokens * topk) - 1;
    auto find = [&](auto kind) {
      for (std::size_t i = 0; i <= last; ++i)
        if (kind(out.at(i))) return static_cast<std::int64_t>(i);
      return std::int64_t{-1};
    };
    std::int64_t minus_one = find([](double e) { return e == -1; });
    const std::int64_t past = find([&](double e) { return e == static_cast<double>(experts); });
    if (minus_one < 0) {
      minus_one = past == 0 ? static_cast<std::int64_t>(last) : 0;
      out.set(static_cast<std::size_t>(minus_one), -1);
    }
    if (past < 0 && last > 0)
      out.set(minus_one == static_cast<std::int64_t>(last) ? 0 : last, static_cast<double>(experts));
  }
}

void items(const IndexCall& call, const HostTensor& ids, std::vector<std::int64_t>& out) {
  for (std::size_t i = 0; i < ids.count; ++i) {
    const auto e = static_cast<std::int64_t>(ids.at(i));
    if (e >= 0 && e < call.param("experts")) out.push_back(e);
  }
}

bool offers(const std::string& mode, const std::map<std::string, std::int64_t>& params) {
  return mode != "remote" || params.at("remote") != 0;
}

}  // namespace

extern const IndexGenerator kExpertIdsGenerator{
    .kind = "expert_ids",
    .summary = "[tokens, TOPK] expert ids, distinct within a token, in 0..experts-1; tokens that share experts and one "
               "that does not; with `remote` 1, some ids of another GPU's experts (-1, or experts and above). "
               "Addresses the experts' weights: item = expert id",
    .rank = 2,
    .params = {{"experts", false, ""}, {"remote", false, "0"}},
    .modes = {"same_experts", "disjoint", "remote"},
    .generate = generate,
    .items = items,
    .offers = offers,
};

}  // namespace hone
