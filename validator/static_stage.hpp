#pragma once
// Stage 1, static: the candidate compiles for the real architecture, its entry has the op's
// signature, and its resource usage is within limits.
#include <string>

#include "core/candidate.hpp"
#include "core/op_spec.hpp"
#include "runtime/kernel_build.hpp"
#include "validator/verdict.hpp"

namespace hone {

struct StaticLimits {
  int max_registers = 255;
  int max_spill_bytes = 0;          // stores + loads: a spilling kernel is not offered as a winner
  int max_stack_bytes = 2048;       // local memory per thread
  int max_shared_bytes = 48 * 1024; // static + dynamic, without the opt-in to larger carve-outs
  int registers_per_sm_block = 65536;
};

/// What a baseline (the op's reference) is held to: it only has to run, however slowly, so its
/// spills and stack are not limited. A job checks it so, and a gate checks an exported reference
/// (a task no candidate beat) the same way.
inline StaticLimits baseline_limits() {
  StaticLimits limits;
  limits.max_spill_bytes = limits.max_stack_bytes = 1 << 30;
  return limits;
}

/// Source appended for the NVRTC compile only: a static_assert that `entry` has exactly the
/// op's parameter types, so a kernel with a different signature fails to compile with a message
/// that says so.
std::string signature_check_source(const OpSpec& op, const std::string& entry);

/// The build request for a candidate (with the signature check).
KernelBuildRequest static_build_request(const OpSpec& op, const Candidate& c, const std::string& arch,
                                        const std::string& device_kind);

/// The static verdict from a build, at the launch the candidate gets at `shape`.
Verdict static_verdict(const OpSpec& op, const Candidate& c, const KernelBuild& build, const Bindings& shape,
                       const StaticLimits& limits = {});

}  // namespace hone
