// The index generators (core/index/*.cpp): what each promises in its typical mode and its
// adversarial modes, over many seeds.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "core/index_generator.hpp"
#include "core/input_error.hpp"

using namespace hone;

namespace {

struct Draw {
  IndexCall call;
  Rng rng{1};
  HostTensor out;

  Draw(const std::string& kind, std::vector<std::int64_t> extents, std::map<std::string, std::int64_t> params,
       std::uint64_t seed, const std::string& mode = kTypicalMode, DType dtype = DType::i32)
      : rng(seed) {
    const IndexGenerator* g = find_index_generator(kind);
    REQUIRE(g);
    for (const auto& p : g->params)
      if (!p.input && !params.count(p.name)) params[p.name] = std::stoll(p.default_value);
    call.extents = std::move(extents);
    call.params = std::move(params);
    call.mode = mode;
    call.rng = &rng;
    std::size_t n = 1;
    for (auto e : call.extents) n *= static_cast<std::size_t>(e);
    out = HostTensor(dtype, n);
    generator = g;
  }
  void run() { generator->generate(call, out); }
  std::vector<std::int64_t> values() const {
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < out.count; ++i) v.push_back(static_cast<std::int64_t>(out.at(i)));
    return v;
  }
  const IndexGenerator* generator = nullptr;
};

}  // namespace

TEST_CASE("index generators: the registry lists each kind once, with modes and parameters") {
  std::set<std::string> kinds;
  for (const IndexGenerator* g : index_generators()) {
    CHECK(kinds.insert(g->kind).second);
    CHECK_FALSE(g->summary.empty());
    CHECK(static_cast<bool>(g->generate));
  }
  for (const char* k : {"seq_lens", "block_table", "positions", "slots", "expert_ids"}) CHECK(kinds.count(k));
  CHECK(find_index_generator("nope") == nullptr);
}

TEST_CASE("seq_lens: ragged, the longest at the bound, padded rows and a length 1 in the typical draw") {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Draw d("seq_lens", {8}, {{"max", 100}}, seed);
    d.run();
    const auto v = d.values();
    CHECK(*std::max_element(v.begin(), v.end()) == 100);
    CHECK(std::count(v.begin(), v.end(), 0) >= 1);
    CHECK(std::count(v.begin(), v.end(), 1) >= 1);
    CHECK(std::all_of(v.begin(), v.end(), [](auto l) { return l >= 0 && l <= 100; }));
    CHECK(std::set<std::int64_t>(v.begin(), v.end()).size() >= 3);
  }
  Draw one("seq_lens", {1}, {{"max", 77}}, 3);
  one.run();
  CHECK(one.values() == std::vector<std::int64_t>{77});  // a single row is never padded
  Draw no_pad("seq_lens", {8}, {{"max", 9}, {"pad", 0}}, 4);
  no_pad.run();
  for (auto l : no_pad.values()) CHECK(l >= 1);
}

TEST_CASE("seq_lens: the adversarial modes") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Draw longest("seq_lens", {16}, {{"max", 4096}}, seed, "one_long");
    longest.run();
    auto v = longest.values();
    CHECK(std::count(v.begin(), v.end(), 4096) == 1);
    CHECK(std::count_if(v.begin(), v.end(), [](auto l) { return l >= 1 && l <= 8; }) == 15);

    Draw padded("seq_lens", {16}, {{"max", 300}}, seed, "all_padded_but_one");
    padded.run();
    v = padded.values();
    CHECK(std::count(v.begin(), v.end(), 0) == 15);
    CHECK(std::count(v.begin(), v.end(), 300) == 1);

    Draw ones("seq_lens", {4}, {{"max", 300}}, seed, "length_one");
    ones.run();
    CHECK(ones.values() == std::vector<std::int64_t>(4, 1));

    Draw full("seq_lens", {5}, {{"max", 300}}, seed, "full");
    full.run();
    CHECK(full.values() == std::vector<std::int64_t>(5, 300));

    Draw edges("seq_lens", {16}, {{"max", 300}, {"page", 16}}, seed, "page_edges");
    edges.run();
    for (auto l : edges.values()) {
      const auto off = l % 16;
      CHECK_MESSAGE((off <= 1 || off == 15 || l == 300), l);
    }
  }
  const IndexGenerator* g = find_index_generator("seq_lens");
  CHECK_FALSE(g->offers("all_padded_but_one", {{"max", 5}, {"pad", 0}, {"page", 1}}));
  CHECK_FALSE(g->offers("page_edges", {{"max", 5}, {"pad", 1}, {"page", 1}}));
  CHECK(g->offers("page_edges", {{"max", 5}, {"pad", 1}, {"page", 16}}));
}

TEST_CASE("block_table: distinct random pages, never contiguous, -1 past a sequence's last page") {
  const std::int64_t page = 4, width = 10, rows = 6, pool = rows * width + 3;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Draw lens("seq_lens", {rows}, {{"max", width * page}}, seed);
    lens.run();
    for (const char* mode : {"typical", "reverse"}) {
      CAPTURE(mode);
      Draw d("block_table", {rows, width}, {{"page", page}, {"pages", pool}}, seed + 1000, mode);
      d.call.inputs["lengths"] = &lens.out;
      d.run();
      const auto table = d.values();
      std::set<std::int64_t> seen;
      std::vector<std::int64_t> in_order;
      for (std::int64_t b = 0; b < rows; ++b) {
        const auto len = static_cast<std::int64_t>(lens.out.at(b));
        const std::int64_t pages = (len + page - 1) / page;
        for (std::int64_t j = 0; j < width; ++j) {
          const auto p = table[b * width + j];
          if (j >= pages) {
            CHECK(p == -1);
            continue;
          }
          CHECK(p >= 0);
          CHECK(p < pool);
          CHECK(seen.insert(p).second);
          in_order.push_back(p);
          if (j > 0 && std::string(mode) == "typical") CHECK(p != table[b * width + j - 1] + 1);
          if (j > 0 && std::string(mode) == "reverse") CHECK(p == table[b * width + j - 1] - 1);
        }
      }
      // The items are the pool's tokens the sequences hold.
      std::vector<std::int64_t> items;
      d.generator->items(d.call, d.out, items);
      std::int64_t tokens = 0;
      for (std::int64_t b = 0; b < rows; ++b) tokens += static_cast<std::int64_t>(lens.out.at(b));
      CHECK(static_cast<std::int64_t>(items.size()) == tokens);
      CHECK(std::set<std::int64_t>(items.begin(), items.end()).size() == items.size());
    }
  }
  Draw lens("seq_lens", {2}, {{"max", 40}}, 1, "all_padded_but_one");
  lens.run();
  Draw small("block_table", {2, 10}, {{"page", 4}, {"pages", 5}}, 2);
  small.call.inputs["lengths"] = &lens.out;
  CHECK_THROWS_AS(small.run(), InputError);
}

TEST_CASE("positions: inside 0..max-1, the table's edges and one shared position in their modes") {
  Draw d("positions", {64}, {{"max", 1000}}, 5, kTypicalMode, DType::i64);
  d.run();
  for (auto p : d.values()) CHECK((p >= 0 && p < 1000));
  Draw e("positions", {6}, {{"max", 1000}}, 5, "edges", DType::i64);
  e.run();
  auto v = e.values();
  CHECK(std::count(v.begin(), v.end(), 0) == 2);
  CHECK(std::count(v.begin(), v.end(), 999) == 2);
  Draw s("positions", {6}, {{"max", 1000}}, 5, "same", DType::i64);
  s.run();
  v = s.values();
  CHECK(std::set<std::int64_t>(v.begin(), v.end()).size() == 1);
}

TEST_CASE("slots: distinct, skipping, padded rows negative, and a chained call brings slots back on other rows") {
  int brought_back = 0, moved = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Draw d("slots", {8}, {{"slots", 19}}, seed);
    d.run();
    const auto v = d.values();
    std::set<std::int64_t> valid;
    for (auto s : v) {
      CHECK(s < 19);
      if (s >= 0) CHECK(valid.insert(s).second);
    }
    CHECK(std::count_if(v.begin(), v.end(), [](auto s) { return s < 0; }) == 1);
    CHECK(valid != std::set<std::int64_t>{0, 1, 2, 3, 4, 5, 6});

    Draw next("slots", {8}, {{"slots", 19}}, seed + 77);
    next.call.previous = &d.out;
    next.run();
    const auto w = next.values();
    for (std::size_t r = 0; r < w.size(); ++r) {
      if (w[r] < 0 || !valid.count(w[r])) continue;
      ++brought_back;
      moved += w[r] != v[r];
    }
  }
  CHECK(brought_back > 50);
  CHECK(moved > brought_back / 2);

  Draw all("slots", {8}, {{"slots", 19}}, 3, "all_padded_but_one");
  all.run();
  auto v = all.values();
  CHECK(std::count_if(v.begin(), v.end(), [](auto s) { return s < 0; }) == 7);
  Draw neg("slots", {8}, {{"slots", 19}}, 3, "other_negatives");
  neg.run();
  v = neg.values();
  CHECK(std::count_if(v.begin(), v.end(), [](auto s) { return s < -1; }) >= 2);
  Draw rev("slots", {4}, {{"slots", 19}, {"pad", 0}}, 3, "reverse");
  rev.run();
  CHECK(rev.values() == std::vector<std::int64_t>{18, 17, 16, 15});
  Draw few("slots", {8}, {{"slots", 5}}, 3);
  CHECK_THROWS_AS(few.run(), InputError);
}

TEST_CASE("expert_ids: distinct within a token, shared and unshared experts, remote ids where allowed") {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Draw d("expert_ids", {6, 4}, {{"experts", 64}}, seed);
    d.run();
    const auto v = d.values();
    std::vector<std::set<std::int64_t>> tokens(6);
    for (std::size_t i = 0; i < v.size(); ++i) {
      CHECK((v[i] >= 0 && v[i] < 64));
      CHECK(tokens[i / 4].insert(v[i]).second);
    }
    std::vector<std::int64_t> common;
    std::set_intersection(tokens[0].begin(), tokens[0].end(), tokens[1].begin(), tokens[1].end(), std::back_inserter(common));
    CHECK_FALSE(common.empty());

    Draw same("expert_ids", {6, 4}, {{"experts", 64}}, seed, "same_experts");
    same.run();
    const auto s = same.values();
    for (int t = 1; t < 6; ++t) CHECK(std::set<std::int64_t>(s.begin() + t * 4, s.begin() + t * 4 + 4) == std::set<std::int64_t>(s.begin(), s.begin() + 4));

    Draw apart("expert_ids", {6, 4}, {{"experts", 64}}, seed, "disjoint");
    apart.run();
    const auto a = apart.values();
    CHECK(std::set<std::int64_t>(a.begin(), a.end()).size() == 24);
  }
  int remote = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Draw r("expert_ids", {8, 4}, {{"experts", 16}, {"remote", 1}}, seed, "remote");
    r.run();
    for (auto e : r.values()) remote += e < 0 || e >= 16;
  }
  CHECK(remote > 100);
  const IndexGenerator* g = find_index_generator("expert_ids");
  CHECK_FALSE(g->offers("remote", {{"experts", 8}, {"remote", 0}}));
}
