#pragma once
// What one kernel's evaluation costs, counted from the checks the validator makes at a task's
// shape rather than assumed alike for every op: an attention task with two dynamic dims and
// adversarial block tables and lengths makes twice the checks of an rmsnorm, and most of its
// hidden tests run near the task's full size (a bucket's top minus one).
#include <map>
#include <string>

#include "core/op_spec.hpp"
#include "validator/hidden_tests.hpp"

namespace hone {

/// Launches and host draws of one kernel's evaluation, in launches and draws of every buffer at
/// the task's shape: a check at a smaller shape counts its share (its bytes or flops, whichever
/// share is larger, for a launch; its buffers' bytes for a draw).
struct EvaluationWork {
  double launches = 0;
  double draws = 0;
};

/// The reference stage (`seeds` checks and one per input case), the hidden tests at `shape` in
/// `buckets`, the consistency run, the timing (a warm-up and `timed_samples` more launches:
/// samples_after_warm_up) and the check after it. A check is the candidate's launch and the
/// reference's (twice for an op with an in-out float buffer: the signalling-NaN probe), one more
/// candidate launch per alias the spec allows, all of it once per call of a chain.
EvaluationWork evaluation_work(const OpSpec& op, const Bindings& shape, const std::map<std::string, Bucket>& buckets, int seeds,
                               int timed_samples);

}  // namespace hone
