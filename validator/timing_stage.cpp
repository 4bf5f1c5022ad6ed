#include "validator/timing_stage.hpp"

#include <memory>

#include "validator/kernel_args.hpp"
#include "validator/timing.hpp"
#include "validator/timing_plan.hpp"

namespace hone {

namespace {

// Argument sets a timing rotates among: the one given, and more copies of the same inputs in
// fresh buffers up to the plan's count.
struct ArgRotation {
  std::vector<std::unique_ptr<LaunchArgs>> extra;
  std::vector<void**> argv;
};

ArgRotation rotation(StageRun& run, LaunchArgs& first, const std::vector<HostTensor>& host, const TimingPlan& plan) {
  ArgRotation r;
  r.argv.push_back(first.argv());
  for (int i = 1; i < plan.input_sets; ++i) {
    r.extra.push_back(std::make_unique<LaunchArgs>(run.device, run.op, run.req.shape, run.req.scalars, host));
    r.argv.push_back(r.extra.back()->argv());
  }
  return r;
}

}  // namespace

void timing_stage(StageRun& run, Verdict& v) {
  run.stage("timing");
  const auto host = generate_inputs(run.op, run.req.shape, run.req.seeds.empty() ? 1 : run.req.seeds.front());
  const LaunchDims dims = run.dims_at(run.req.candidate, run.req.shape);
  LaunchArgs args(run.device, run.op, run.req.shape, run.req.scalars, host);
  const double bytes = static_cast<double>(run.op.bytes.eval(run.req.shape));
  const double flops = static_cast<double>(run.op.flops.eval(run.req.shape));
  const TimingPlan plan = plan_timing(warm_up(run.device, *run.candidate, dims, args.argv(), run.req.timing), bytes,
                                      run.device.info(), run.req.timing);
  const ArgRotation sets = rotation(run, args, host, plan);
  v.timing = measure(run.device, *run.candidate, dims, sets.argv, plan, run.req.timing);
  run.timed_launches = v.timing.runs * plan.launches_per_sample;
  const std::string impossible = impossible_speed(v.timing.median_ms, bytes, flops, run.device.info());
  if (!impossible.empty()) {
    Verdict failed = Verdict::failed("timing", impossible);
    failed.timing = v.timing;
    throw StageFailure{failed};
  }
  if (run.device.info().copy_bandwidth_gbs <= 0) v.detail["impossible_speed_check"] = "skipped: the device's bandwidth is unknown";
}

void timing_against_reference_stage(StageRun& run, Verdict& v) {
  run.stage("timing");
  const auto host = generate_inputs(run.op, run.req.shape, run.req.seeds.empty() ? 1 : run.req.seeds.front());
  LaunchArgs cand_args(run.device, run.op, run.req.shape, run.req.scalars, host);
  LaunchArgs ref_args(run.device, run.op, run.req.shape, run.req.scalars, host);
  const double bytes = static_cast<double>(run.op.bytes.eval(run.req.shape));
  const LaunchDims cand_dims = run.dims_at(run.req.candidate, run.req.shape);
  const LaunchDims ref_dims = run.dims_at(run.req.reference, run.req.shape);
  const TimingPlan cand_plan = plan_timing(warm_up(run.device, *run.candidate, cand_dims, cand_args.argv(), run.req.timing),
                                           bytes, run.device.info(), run.req.timing);
  const TimingPlan ref_plan = plan_timing(warm_up(run.device, *run.reference, ref_dims, ref_args.argv(), run.req.timing),
                                          bytes, run.device.info(), run.req.timing);
  const ArgRotation cand_sets = rotation(run, cand_args, host, cand_plan), ref_sets = rotation(run, ref_args, host, ref_plan);
  auto [cand, ref] = time_interleaved(run.device, {run.candidate.get(), cand_dims, cand_sets.argv, cand_plan},
                                      {run.reference.get(), ref_dims, ref_sets.argv, ref_plan}, run.req.timing);
  v.timing = cand;
  v.detail["baseline"] = {{"median_ms", ref.median_ms}, {"min_ms", ref.min_ms}, {"spread", ref.spread}, {"runs", ref.runs}};
}

}  // namespace hone
