// Warp intrinsics on the emu device: every shuffle form and type, widths below 32, votes.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/dtype.hpp"
#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

// Which thread's value a shuffle returns to `lane`, by CUDA's definition of each form: within
// segments of `width` lanes; a source outside the segment (later segment for xor) yields the
// caller's own value.
int expected_source(int form, int t, int src, int delta, int lane_mask, int width) {
  const int lane = t % 32, base = t - lane;
  const int segment = lane / width * width;
  int s = lane;
  switch (form) {
    case 0: s = segment + src % width; break;
    case 1: s = lane - delta >= segment ? lane - delta : lane; break;
    case 2: s = lane + delta < segment + width ? lane + delta : lane; break;
    case 3: s = (lane ^ lane_mask) < segment + width ? lane ^ lane_mask : lane; break;
  }
  return base + s;
}

struct Pair16 {
  std::uint16_t lo, hi;
};

}  // namespace

TEST_CASE("emu: every __shfl form on every type, widths 32 down to 2") {
  const EmuModule m = build("warp_shuffle.cu", "shuffle_forms",
                            {"int*", "unsigned*", "long long*", "float*", "double*", "__half*", "__nv_bfloat16*",
                             "__half2*", "__nv_bfloat162*", "int", "int", "int", "int"});
  const int n = 64;  // two warps
  struct Case {
    int src, delta, lane_mask, width;
  };
  for (const Case c : {Case{5, 1, 1, 32}, Case{31, 7, 16, 32}, Case{3, 2, 5, 16}, Case{9, 3, 12, 8}, Case{1, 1, 3, 4},
                       Case{0, 1, 1, 2}}) {
    CAPTURE(c.src);
    CAPTURE(c.delta);
    CAPTURE(c.lane_mask);
    CAPTURE(c.width);
    std::vector<int> oi(4 * n);
    std::vector<unsigned> ou(4 * n);
    std::vector<long long> oll(4 * n);
    std::vector<float> of(4 * n);
    std::vector<double> od(4 * n);
    std::vector<std::uint16_t> oh(4 * n), ob(4 * n);
    std::vector<Pair16> oh2(4 * n), ob2(4 * n);
    int* pi = oi.data();
    unsigned* pu = ou.data();
    long long* pll = oll.data();
    float* pf = of.data();
    double* pd = od.data();
    void* ph = oh.data();
    void* pb = ob.data();
    void* ph2 = oh2.data();
    void* pb2 = ob2.data();
    int src = c.src, delta = c.delta, lane_mask = c.lane_mask, width = c.width;
    auto a = args(pi, pu, pll, pf, pd, ph, pb, ph2, pb2, src, delta, lane_mask, width);
    m.launch(dims({1, 1, 1}, {n, 1, 1}), a.data());
    for (int form = 0; form < 4; ++form)
      for (int t = 0; t < n; ++t) {
        CAPTURE(form);
        CAPTURE(t);
        const int s = expected_source(form, t, c.src, c.delta, c.lane_mask, c.width);
        const std::size_t k = static_cast<std::size_t>(form * n + t);
        CHECK(oi[k] == 1000 + s);
        CHECK(ou[k] == 3000000000u + static_cast<unsigned>(s));
        CHECK(oll[k] == (1LL << 40) + s);
        CHECK(of[k] == 0.5f * static_cast<float>(s));
        CHECK(od[k] == 1e10 + s);
        CHECK(f16_to_float(oh[k]) == static_cast<float>(s));
        CHECK(bf16_to_float(ob[k]) == static_cast<float>(s));
        CHECK(f16_to_float(oh2[k].lo) == static_cast<float>(s));
        CHECK(f16_to_float(oh2[k].hi) == -static_cast<float>(s));
        CHECK(bf16_to_float(ob2[k].lo) == static_cast<float>(s));
        CHECK(bf16_to_float(ob2[k].hi) == -static_cast<float>(s));
      }
  }
}

TEST_CASE("emu: warp reductions with __shfl_down_sync and a width-8 butterfly") {
  const EmuModule m = build("warp_shuffle.cu", "warp_sums", {"float*", "float*", "const float*"});
  const int blocks = 8, threads = 128, n = blocks * threads;
  std::vector<float> in(n), warp_total(n / 32), segment_total(n);
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = static_cast<float>((i * 37) % 101) - 50.0f;
  float* w = warp_total.data();
  float* s = segment_total.data();
  const float* x = in.data();
  auto a = args(w, s, x);
  m.launch(dims({blocks, 1, 1}, {threads, 1, 1}), a.data());
  for (int warp = 0; warp < n / 32; ++warp) {
    float expect = 0;
    for (int l = 0; l < 32; ++l) expect += in[static_cast<std::size_t>(warp * 32 + l)];
    CHECK(warp_total[static_cast<std::size_t>(warp)] == expect);
  }
  for (int i = 0; i < n; ++i) {
    float expect = 0;
    for (int l = i / 8 * 8; l < i / 8 * 8 + 8; ++l) expect += in[static_cast<std::size_t>(l)];
    CHECK(segment_total[static_cast<std::size_t>(i)] == expect);
  }
}

TEST_CASE("emu: __ballot_sync, __any_sync, __all_sync and __activemask, including a partial warp") {
  const EmuModule m = build("warp_vote.cu", "votes",
                            {"unsigned*", "int*", "int*", "unsigned*", "unsigned*", "const int*"});
  const int n = 80;  // warps of 32, 32 and 16 lanes
  std::vector<int> pred(n);
  for (int t = 0; t < n; ++t) {
    if (t < 32) pred[static_cast<std::size_t>(t)] = t % 5 == 0;  // some
    else if (t < 64) pred[static_cast<std::size_t>(t)] = 1;       // all
    else pred[static_cast<std::size_t>(t)] = 0;                   // none
  }
  std::vector<unsigned> ballot(n), half(n), active(n);
  std::vector<int> any(n), all(n);
  unsigned* pb = ballot.data();
  int* pa = any.data();
  int* pl = all.data();
  unsigned* ph = half.data();
  unsigned* pact = active.data();
  const int* pp = pred.data();
  auto a = args(pb, pa, pl, ph, pact, pp);
  m.launch(dims({1, 1, 1}, {n, 1, 1}), a.data());
  unsigned some = 0;
  for (int l = 0; l < 32; l += 5) some |= 1u << l;
  for (int t = 0; t < n; ++t) {
    CAPTURE(t);
    const std::size_t k = static_cast<std::size_t>(t);
    const int warp = t / 32;
    const unsigned expect_ballot = warp == 0 ? some : warp == 1 ? 0xffffffffu : 0u;
    CHECK(ballot[k] == expect_ballot);
    CHECK(any[k] == (warp != 2));
    CHECK(all[k] == (warp == 1));
    CHECK(half[k] == (expect_ballot & (t % 32 < 16 ? 0x0000ffffu : 0xffff0000u)));
    const unsigned existing = warp == 2 ? 0x0000ffffu : 0xffffffffu;
    CHECK(active[k] == (t % 32 >= 24 ? 0u : existing & 0x00ffffffu));
  }
}
