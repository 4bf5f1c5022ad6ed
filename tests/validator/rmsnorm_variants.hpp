#pragma once
// The hand-written rmsnorm kernels of tests/data/validator/rmsnorm_variants.cu (right, wrong,
// crashing, hanging, ...) as candidates, one warp of rows per block, and the requests that
// evaluate them, for the worker tests.
#include <doctest/doctest.h>

#include <string>

#include "core/candidate.hpp"
#include "core/expr.hpp"
#include "core/json_file.hpp"
#include "core/op_spec.hpp"
#include "runtime/kernel_build.hpp"
#include "validator/evaluation.hpp"
#include "validator/static_stage.hpp"
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

/// A request that checks and times `c` against the rmsnorm reference `op` at `shape`, both built
/// for `arch` on `device_kind`, with inputs from seeds 11 and 12.
inline EvaluationRequest rmsnorm_request(const OpSpec& op, const Candidate& c, const Bindings& shape, const std::string& arch,
                                         const std::string& device_kind) {
  const Candidate ref = reference_candidate(op);
  KernelBuild rb = build_kernel(static_build_request(op, ref, arch, device_kind));
  KernelBuild cb = build_kernel(static_build_request(op, c, arch, device_kind));
  REQUIRE_MESSAGE(rb.ok(), rb.error());
  REQUIRE_MESSAGE(cb.ok(), cb.error());
  EvaluationRequest r;
  r.spec_dir = op.dir;
  r.shape = shape;
  r.reference = {rb.image, ref.launch};
  r.candidate = {cb.image, c.launch};
  r.seeds = {11, 12};
  return r;
}

}  // namespace hone::test
