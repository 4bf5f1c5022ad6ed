// The source rewrites the emu device applies before the host compiler sees a kernel
// (runtime/emu/compile/emu_source.hpp): here CUDA's unroll pragma, which GCC would ignore.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "runtime/emu/compile/emu_source.hpp"

using hone::emu::rewrite_unroll_pragmas;

TEST_CASE("emu source: #pragma unroll becomes GCC's, its count kept when it is a number, line for line") {
  CHECK(rewrite_unroll_pragmas("#pragma unroll\nfor (;;) {}\n") == "#pragma GCC unroll 16\nfor (;;) {}\n");
  CHECK(rewrite_unroll_pragmas("  #  pragma   unroll 4\n") == "#pragma GCC unroll 4\n");
  CHECK(rewrite_unroll_pragmas("#pragma unroll (8)\n") == "#pragma GCC unroll 8\n");
  CHECK(rewrite_unroll_pragmas("#pragma unroll 1") == "#pragma GCC unroll 1");  // 1: do not unroll, as nvcc
  // A count GCC cannot take (a template argument, zero) unrolls as far as a constant trip count allows.
  CHECK(rewrite_unroll_pragmas("#pragma unroll VEC\n") == "#pragma GCC unroll 16\n");
  CHECK(rewrite_unroll_pragmas("#pragma unroll 0\n") == "#pragma GCC unroll 16\n");
  // Everything else is left alone.
  for (const std::string other : {"#pragma once\n", "#pragma unrolled\n", "// #pragma unroll\n", "x = 1; #pragma unroll\n",
                                  "#pragma GCC unroll 2\n"})
    CHECK(rewrite_unroll_pragmas(other) == other);
  const std::string body = "a\n#pragma unroll\nb\r\n\n#pragma unroll 2\nc";
  const std::string out = rewrite_unroll_pragmas(body);
  CHECK(std::count(out.begin(), out.end(), '\n') == std::count(body.begin(), body.end(), '\n'));
}
