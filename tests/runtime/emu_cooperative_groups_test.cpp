// cooperative_groups on the emu device: the block, tiles of every size with their shuffles and
// votes, the run-time tile, cg::reduce; each value checked against its definition.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

TEST_CASE("emu: cooperative groups: thread_block, tiled_partition, shuffles, votes and cg::reduce") {
  const EmuModule m = build("cooperative_groups.cu", "groups", {"int*", "const int*"});
  for (const int n : {32, 64, 256}) {
    CAPTURE(n);
    const int blocks = 3;
    std::vector<int> in(blocks * n), out(blocks * 13 * n, -7);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 37 % 101);
    int* o = out.data();
    const int* x = in.data();
    auto a = args(o, x);
    m.launch(dims({blocks, 1, 1}, {n, 1, 1}), a.data());
    for (int b = 0; b < blocks; ++b) {
      const int* v = in.data() + b * n;
      auto got = [&](int k, int t) { return out[static_cast<std::size_t>((b * 13 + k) * n + t)]; };
      auto tile_fold = [&](int t, int size, auto op) {
        const int base = t / size * size;
        int acc = v[base];
        for (int r = 1; r < size; ++r) acc = op(acc, v[base + r]);
        return acc;
      };
      auto plus = [](int p, int q) { return p + q; };
      auto larger = [](int p, int q) { return std::max(p, q); };
      for (int t = 0; t < n; ++t) {
        CAPTURE(t);
        CHECK(got(0, t) == t);
        CHECK(got(1, t) == n);
        CHECK(got(2, t) == t % 8);
        CHECK(got(3, t) == t / 8);
        CHECK(got(4, t) == (t % 8 == 0 ? tile_fold(t, 8, plus) : -1));
        CHECK(got(5, t) == tile_fold(t, 16, plus));
        CHECK(got(6, t) == tile_fold(t, 32, larger));
        CHECK(got(7, t) == v[t / 4 * 4 + 3]);
        CHECK(got(8, t) == v[t ^ 1]);
        unsigned ballot = 0;
        for (int r = 0; r < 8; ++r) ballot |= (v[t / 8 * 8 + r] % 2 != 0 ? 1u : 0u) << r;
        CHECK(static_cast<unsigned>(got(9, t)) == ballot);
        bool any = false;
        for (int r = 0; r < 16; ++r) any |= v[t / 16 * 16 + r] > 90;
        CHECK(got(10, t) == (any ? 1 : 0) + 2);
        CHECK(got(11, t) == t % 4);
        CHECK(got(12, t) == (t % 8 == 0 ? v[t] : v[t - 1]));
      }
    }
  }
}
