// Shared memory starts every block poisoned (0xff bytes: NaN as floats), static __shared__ as well
// as dynamic: a kernel that reads what nothing wrote gets poison, never the previous block's data.
#include <doctest/doctest.h>

#include <vector>

#include "emu_test_support.hpp"

using namespace hone;
using namespace hone::emu_test;

namespace {

// Every value each block found before writing must be the poison, in every block: blocks share
// OS threads (and so, without the poisoning, their static shared variables).
void check_all_poisoned(const EmuModule& m, std::int64_t smem) {
  const int blocks = 48;
  std::vector<unsigned> out(blocks * 64, 0);
  unsigned* o = out.data();
  auto a = args(o);
  for (int round = 0; round < 2; ++round) {
    m.launch(dims({blocks, 1, 1}, {64, 1, 1}, smem), a.data());
    int fresh = 0;
    for (unsigned v : out) fresh += v == 0xffffffffu;
    CHECK(fresh == blocks * 64);
  }
}

}  // namespace

TEST_CASE("emu: static __shared__ memory is poisoned at the start of every block") {
  const EmuModule m = build("shared_poison.cu", "static_shared_fresh", {"unsigned*"});
  CHECK(m.static_shared_bytes() >= 64 * sizeof(unsigned));
  check_all_poisoned(m, 0);
}

TEST_CASE("emu: dynamic shared memory is poisoned at the start of every block") {
  const EmuModule m = build("shared_poison.cu", "dynamic_shared_fresh", {"unsigned*"});
  check_all_poisoned(m, 64 * sizeof(unsigned));
}
