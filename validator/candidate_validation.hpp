#pragma once
// The five stages for one candidate, end to end: the source policy and the static checks in this
// process, then the reference check, hidden tests, consistency checks and timing in the worker.
#include <map>
#include <string>

#include "core/candidate.hpp"
#include "core/model_shapes.hpp"
#include "core/op_spec.hpp"
#include "runtime/kernel_build.hpp"
#include "validator/evaluation.hpp"
#include "validator/static_stage.hpp"
#include "validator/worker.hpp"

namespace hone {

struct ValidationOptions {
  std::string arch = "sm_90";
  std::string device_kind = "emu";         // "none": the static stage only
  std::map<std::string, Bucket> buckets;   // empty: the default bucket of each dynamic dim's value
  std::map<std::string, double> scalars;
  int seeds = 2;
  TimingOptions timing;
  StaticLimits limits;
  /// Seconds a launch may run before it is a hang (`--timeout`); 0: derived from the reference's
  /// own launch, timed on the device first (validator/hang_limit.hpp).
  double timeout_s = 0;
};

/// The request that checks `candidate` against `reference` at `shape`, with fresh visible seeds.
EvaluationRequest evaluation_request(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets,
                                     const std::map<std::string, double>& scalars, const Candidate& reference,
                                     const KernelImage& reference_image, const Candidate& candidate,
                                     const KernelImage& candidate_image, int seeds);

/// Each dynamic dim's bucket: from `given` where it names it, else the default bucket of its value.
std::map<std::string, Bucket> buckets_for(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& given);

/// Whether `c` is the op's own reference as installed: its entry, source and launch rule.
bool is_the_reference(const Candidate& c, const OpSpec& op);

/// What a verdict's detail.reference_itself says of a candidate that is the op's reference.
inline constexpr const char* kReferenceItself =
    "the op's own reference, as installed: what every check compares with, so it is not compared with itself; it ran at the "
    "shape (timed), as a job runs a baseline";

/// Validates one candidate. `worker` may be null only for device "none". The verdict's
/// detail.launch_limit says what limit its launches had. The op's own reference
/// (is_the_reference) is built, held to `options.limits`, and run once at the shape.
/// `build`, when given, receives the candidate's build (its PTX and CUBIN: the gate compares them
/// with a cache's).
Verdict validate_candidate(const OpSpec& op, const Candidate& candidate, const Bindings& shape,
                           const ValidationOptions& options, Worker* worker, KernelBuild* build = nullptr);

}  // namespace hone
