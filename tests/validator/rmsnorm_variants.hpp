#pragma once
// The hand-written rmsnorm kernels of tests/data/validator/rmsnorm_variants.cu (right, wrong,
// crashing, hanging, ...) as candidates, one warp of rows per block, for the worker tests.
#include <string>

#include "core/candidate.hpp"
#include "core/expr.hpp"
#include "core/json_file.hpp"
#include "support/test_data_dir.hpp"

namespace hone::test {

inline Candidate rmsnorm_variant(const std::string& entry) {
  static const std::string source = read_text_file(test_data_dir() + "/validator/rmsnorm_variants.cu");
  Candidate c;
  c.op = "rmsnorm";
  c.origin = "user";
  c.entry = entry;
  c.source = source;
  c.launch.grid = {Expr::parse("ceil_div(tokens, 32)"), Expr::constant(1), Expr::constant(1)};
  c.launch.block = {Expr::constant(32), Expr::constant(1), Expr::constant(1)};
  return c;
}

}  // namespace hone::test
