#include <doctest/doctest.h>

#include "core/outside_text.hpp"

using namespace hone;

TEST_CASE("outside text: a secret is starred out wherever it appears, an empty one hides nothing") {
  CHECK(redact("key sk-1 and sk-1 again", "sk-1") == "key *** and *** again");
  CHECK(redact("sk-1sk-1", "sk-1") == "******");
  CHECK(redact("nothing to hide", "") == "nothing to hide");
}

TEST_CASE("outside text: a snippet is one line, cut at its length with a mark") {
  CHECK(snippet("short\r\nbody", 50) == "short  body");
  CHECK(snippet("0123456789", 4) == "0123...");
  CHECK(snippet("0123", 4) == "0123");
}
