// "i/n" shards: what parses, what is refused with the flag named, and that n shards take every
// item exactly once.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "core/shard.hpp"

using namespace hone;

TEST_CASE("shard: i/n parses and the shards of n take every item exactly once") {
  const Shard s = parse_shard("2/3");
  CHECK(s.index == 2);
  CHECK(s.count == 3);
  std::vector<int> taken(10, 0);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t item = 0; item < taken.size(); ++item) taken[item] += parse_shard(std::to_string(i) + "/3").takes(item);
  for (int t : taken) CHECK(t == 1);
}

TEST_CASE("shard: bad values are refused naming --shard") {
  for (const std::string bad : {"0/0", "2/2", "3/2", "1", "", "/2", "1/", "a/2", "-1/2", "1/2/3", "1.0/2"}) {
    CAPTURE(bad);
    try {
      parse_shard(bad);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("--shard") != std::string::npos);
    }
  }
}
