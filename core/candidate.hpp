#pragma once
// A candidate kernel: one self-contained CUDA C++ source with an extern "C" entry that keeps the
// op's signature, and the launch rule that runs it (over shape symbols only).
#include <string>
#include <vector>

#include "core/launch_rule.hpp"
#include "core/op_spec.hpp"
#include "core/param_space.hpp"

namespace hone {

struct Candidate {
  std::string op;
  std::string origin;       // "reference" | "template" | "user"
  std::string variant;      // template variant, "" otherwise
  Config params;            // the configuration it was rendered from
  std::string entry;
  std::string source;
  LaunchRule launch;        // parameters already bound: depends on shape symbols only

  /// SHA-256 of op, entry, source and launch rule: the same kernel has the same key everywhere.
  std::string key() const;
  /// "template rmsnorm_row_block BLOCK=256,VEC=8" for logs and tables.
  std::string label() const;
};

/// The op's reference kernel as a candidate.
Candidate reference_candidate(const OpSpec& op);

/// The CUDA spelling of each kernel parameter of the op ("const __nv_bfloat16*", "int", ...).
std::vector<std::string> kernel_param_types(const OpSpec& op);

}  // namespace hone
