#include "validator/evaluation_work.hpp"

#include <algorithm>

#include "validator/evaluation_request.hpp"
#include "validator/timing_plan.hpp"

namespace hone {

namespace {

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

}  // namespace

EvaluationWork evaluation_work(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets, int seeds,
                               int timed_samples) {
  const double bytes = static_cast<double>(op.bytes.eval(shape)), flops = static_cast<double>(op.flops.eval(shape));
  const double buffers = static_cast<double>(buffer_bytes_at(op, shape));
  bool probed = false;
  for (const auto& a : op.args) probed |= a.pointer && a.role == ArgRole::InOut && dtype_is_float(a.dtype);
  const double per_check = 2.0 + (probed ? 1 : 0) + static_cast<double>(op.aliases.size());

  EvaluationWork w;
  auto check_at = [&](const Bindings& at, double launches) {
    const double launch = std::max(share(static_cast<double>(op.bytes.eval(at)), bytes), share(static_cast<double>(op.flops.eval(at)), flops));
    w.launches += launches * launch * op.chain_calls;
    w.draws += share(static_cast<double>(buffer_bytes_at(op, at)), buffers) * op.chain_calls;
  };
  for (std::size_t c = 0; c < static_cast<std::size_t>(std::max(seeds, 1)) + op.input_cases.size(); ++c) check_at(shape, per_check);
  Rng rng(1);  // which value inside a bucket changes; how many tests there are does not
  for (const HiddenTest& t : hidden_tests(op, shape, buckets, rng)) check_at(t.shape, per_check);
  check_at(shape, 1);                                                   // consistency: the candidate again
  check_at(shape, 1 + timed_samples);                                   // timing: a warm-up and the samples
  check_at(shape, per_check);                                           // the check after timing
  return w;
}

}  // namespace hone
