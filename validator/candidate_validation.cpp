#include "validator/candidate_validation.hpp"

#include <random>

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

Verdict validate_candidate(const OpSpec& op, const Candidate& candidate, const Bindings& shape,
                           const ValidationOptions& options, Worker* worker) {
  Verdict policy = source_policy_verdict(candidate, options.device_kind);
  if (!policy.pass) return policy;

  // Untrusted source reaches a compiler only in the sandboxed compile process.
  const KernelBuildRequest build_request = static_build_request(op, candidate, options.arch, options.device_kind);
  const KernelBuild build = is_untrusted(candidate) ? build_isolated(build_request) : build_kernel(build_request);
  Verdict v = static_verdict(op, candidate, build, shape, options.limits);
  if (!v.pass || options.device_kind == "none") return v;

  const Candidate reference = reference_candidate(op);
  const KernelBuild ref_build = build_kernel(static_build_request(op, reference, options.arch, options.device_kind));
  if (!ref_build.ok()) return Verdict::failed("static", "the op's reference kernel does not build: " + ref_build.error());

  EvaluationRequest request = evaluation_request(op, shape, buckets_for(op, shape, options.buckets), options.scalars, reference,
                                                 ref_build.image, candidate, build.image, options.seeds);
  request.timing = options.timing;
  Verdict result = worker->evaluate(request);
  result.detail["resources"] = v.detail["resources"];
  return result;
}

}  // namespace hone
