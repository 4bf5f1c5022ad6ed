#include <doctest/doctest.h>

#include "runtime/resource_usage.hpp"

using namespace hone;

TEST_CASE("ptxas report: usage per entry, stack and spills from the properties line") {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_90'\n"
      "ptxas info    : Function properties for first\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'second' for 'sm_90'\n"
      "ptxas info    : Function properties for second\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers\n";
  auto u = parse_ptxas_info(log);
  REQUIRE(u.size() == 2);
  CHECK(u["first"].registers == 40);
  CHECK(u["first"].barriers == 1);
  CHECK(u["first"].shared_bytes == 2048);
  CHECK(u["first"].const_bytes == 400);
  CHECK(u["first"].stack_bytes == 16);
  CHECK(u["first"].spill_stores == 8);
  CHECK(u["first"].spill_loads == 4);
  CHECK(u["second"].registers == 12);
  CHECK(u["second"].shared_bytes == 0);
}
