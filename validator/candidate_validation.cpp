#include "validator/candidate_validation.hpp"

#include <random>

#include "validator/hang_limit.hpp"
#include "validator/hidden_tests.hpp"
#include "validator/isolated_build.hpp"
#include "validator/source_policy.hpp"

namespace hone {

EvaluationRequest evaluation_request(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets,
                                     const std::map<std::string, double>& scalars, const Candidate& reference,
                                     const KernelImage& reference_image, const Candidate& candidate,
                                     const KernelImage& candidate_image, int seeds) {
  static std::random_device rd;
  EvaluationRequest r;
  r.spec_dir = op.dir;
  r.spec_hash = op.content_hash;
  r.shape = shape;
  r.buckets = buckets;
  r.scalars = scalars;
  r.reference = {reference_image, reference.launch};
  r.candidate = {candidate_image, candidate.launch};
  for (int i = 0; i < seeds; ++i) r.seeds.push_back((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  return r;
}

std::map<std::string, Bucket> buckets_for(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& given) {
  std::map<std::string, Bucket> out;
  for (const auto& d : op.dynamic) {
    auto it = given.find(d);
    out[d] = it != given.end() ? it->second : default_bucket_for(shape.at(d));
  }
  return out;
}

bool is_the_reference(const Candidate& c, const OpSpec& op) {
  const Candidate reference = reference_candidate(op);
  return c.entry == reference.entry && c.source == reference.source && c.launch.to_json() == reference.launch.to_json();
}

Verdict validate_candidate(const OpSpec& op, const Candidate& candidate, const Bindings& shape,
                           const ValidationOptions& options, Worker* worker, KernelBuild* build_out) {
  Verdict policy = source_policy_verdict(candidate, options.device_kind);
  if (!policy.pass) return policy;

  // Untrusted source reaches a compiler only in the sandboxed compile process.
  const KernelBuildRequest build_request = static_build_request(op, candidate, options.arch, options.device_kind);
  const KernelBuild build = is_untrusted(candidate) ? build_isolated(build_request) : build_kernel(build_request);
  if (build_out) *build_out = build;
  Verdict v = static_verdict(op, candidate, build, shape, options.limits);
  if (!v.pass || options.device_kind == "none") return v;

  const Candidate reference = reference_candidate(op);
  const KernelBuild ref_build = build_kernel(static_build_request(op, reference, options.arch, options.device_kind));
  if (!ref_build.ok()) return Verdict::failed("static", "the op's reference kernel does not build: " + ref_build.error());

  const auto buckets = buckets_for(op, shape, options.buckets);
  LaunchLimit limit = launch_limit_given(options.timeout_s);
  const bool itself = is_the_reference(candidate, op);
  if (options.timeout_s <= 0 || itself) {
    // The reference's own launch on this device first: a hang is a launch far slower than it.
    EvaluationRequest timing = evaluation_request(op, shape, buckets, options.scalars, reference, ref_build.image, reference,
                                                  ref_build.image, 1);
    timing.check = false;
    timing.timing = options.timing;
    timing.launch_limit_s = limit.seconds;
    timing.launch_limit_basis = limit.basis;
    Verdict ref = worker->evaluate(timing);
    if (itself) {
      // What every check compares with, compared with itself, would prove nothing: it has run at
      // the shape, as a job runs a baseline.
      ref.detail["resources"] = v.detail["resources"];
      if (ref.pass) ref.detail["reference_itself"] = kReferenceItself;
      return ref;
    }
    if (!ref.pass) return Verdict::failed("reference", "the op's reference kernel fails on this device: " + ref.reason);
    limit = launch_limit_from_reference(ref.timing.median_ms);
  }
  EvaluationRequest request = evaluation_request(op, shape, buckets, options.scalars, reference, ref_build.image, candidate,
                                                 build.image, options.seeds);
  request.timing = options.timing;
  request.launch_limit_s = limit.seconds;
  request.launch_limit_basis = limit.basis;
  Verdict result = worker->evaluate(request);
  result.detail["resources"] = v.detail["resources"];
  result.detail["launch_limit"] = {{"seconds", limit.seconds}, {"basis", limit.basis}};
  return result;
}

}  // namespace hone
