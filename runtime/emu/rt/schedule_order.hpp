#pragma once
// The seeded orders of a launch: which block is handed out i-th, and which ready thread resumes
// next. Both are pure functions of the schedule seed, so a schedule that exposes a race can be
// replayed.
#include <cstdint>
#include <numeric>

namespace hone::emu {

/// SplitMix64: tiny, and every seed (even 0 after mixing) gives a usable stream.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A permutation of [0, count): i -> (a*i + c) mod count with a coprime to count. Not uniform
/// over all permutations, but it moves every block, reverses neighbourhoods and costs nothing
/// for grids of any size. Seed 0 is the identity.
class BlockOrder {
 public:
  BlockOrder(std::uint64_t seed, std::int64_t count) : count_(static_cast<std::uint64_t>(count)) {
    if (seed == 0 || count_ < 2) return;
    const std::uint64_t r = mix64(seed);
    a_ = 1 + mix64(r) % (count_ - 1);
    while (std::gcd(a_, count_) != 1) a_ = a_ % (count_ - 1) + 1;
    c_ = r % count_;
  }
  std::int64_t operator()(std::int64_t i) const {
    const unsigned __int128 v = static_cast<unsigned __int128>(a_) * static_cast<std::uint64_t>(i) + c_;
    return static_cast<std::int64_t>(v % count_);
  }

 private:
  std::uint64_t count_;
  std::uint64_t a_ = 1, c_ = 0;
};

/// The stream a block's thread order is drawn from: non-zero whenever the launch seed is.
inline std::uint64_t block_schedule_seed(std::uint64_t launch_seed, std::int64_t block) {
  if (launch_seed == 0) return 0;
  const std::uint64_t s = mix64(launch_seed ^ mix64(static_cast<std::uint64_t>(block)));
  return s ? s : 1;
}

}  // namespace hone::emu
