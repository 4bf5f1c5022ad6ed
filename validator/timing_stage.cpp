#include "validator/timing_stage.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "core/index_timing.hpp"
#include "validator/kernel_args.hpp"
#include "validator/timed_launches.hpp"
#include "validator/timing.hpp"
#include "validator/timing_plan.hpp"
#include "validator/untouched_check.hpp"

namespace hone {

namespace {

// One kernel's timing: planned from a warm-up on single launches, on the buffers the plan needs.
struct KernelTiming {
  LoadedKernel* kernel = nullptr;
  std::string name;  // "the candidate", "the baseline"
  LaunchDims dims;
  TimingPlan plan;
  TimingStats warm;  // the warm-up's launches
  std::unique_ptr<TimedLaunches> launches;

  TimedKernel timed() const { return {kernel, dims, launches->samples(), plan, warm}; }
};

double output_bytes(const OpSpec& op, const std::vector<HostTensor>& host) {
  double bytes = 0;
  for (std::size_t i = 0; i < op.args.size(); ++i)
    if (op.args[i].pointer && op.args[i].role != ArgRole::In) bytes += static_cast<double>(host[i].size_bytes());
  return bytes;
}

KernelTiming prepare(StageRun& run, LoadedKernel& kernel, const KernelUnderTest& k, std::string name,
                     const std::vector<HostTensor>& host) {
  KernelTiming t;
  t.kernel = &kernel;
  t.name = std::move(name);
  t.dims = run.dims_at(k, run.req.shape);
  const Bindings& shape = run.req.shape;
  t.launches = std::make_unique<TimedLaunches>(run.device, run.op, shape, run.req.scalars, host, 1, 1);
  run.launching(t.name + "'s timed launches", shape);
  t.warm = warm_up(run.device, kernel, t.dims, t.launches->samples(), run.req.timing);
  t.plan = plan_timing(t.warm.median_ms, static_cast<double>(run.op.bytes.eval(shape)), run.device.info(), run.req.timing,
                       output_bytes(run.op, host));
  if (t.plan.launches_per_sample > 1) {
    t.launches.reset();  // the warm-up's buffers, before the batch's are made
    t.launches = std::make_unique<TimedLaunches>(run.device, run.op, shape, run.req.scalars, host, t.plan.launches_per_sample,
                                                 t.plan.input_sets);
  }
  return t;
}

// Every timed launch's outputs, as its last sample left them, against the reference's on the
// same inputs: a kernel that does less work when it is timed fails here. Single launches take
// their buffer sets in turn, so `samples` of them reached the first `samples` sets.
void check_timed_outputs(StageRun& run, const KernelTiming& t, const std::vector<HostTensor>& host, const RunResult& expected,
                         int samples) {
  const std::size_t n = t.plan.launches_per_sample > 1 ? t.launches->size()
                                                       : std::min(t.launches->size(), static_cast<std::size_t>(std::max(samples, 1)));
  for (std::size_t j = 0; j < n; ++j) {
    // Every sample starts from the inputs the reference ran on, in-out buffers restored.
    RunResult got;
    got.outputs = t.launches->outputs(j);
    got.before = expected.before;
    got.integrity = t.launches->integrity_problems(j);
    // The comparison looks only at what the index inputs address: the rest is proved unchanged here.
    for (auto& p : unaddressed_changes(run.op, run.req.shape, host, got.outputs)) got.integrity.push_back(std::move(p));
    run.check_integrity(got);
    const std::string what = fmt::format("{}'s timed launch {} of {}, its outputs poisoned with {} before each sample", t.name,
                                         j + 1, n, TimedLaunches::poison_kind(j));
    const std::string mismatch = run.compare(got, expected, run.req.shape, nullptr, what);
    if (!mismatch.empty()) run.fail(mismatch + "; a timed launch must do the work a checked launch does");
  }
}

// The reference is what is right: its own timed outputs need no comparing with it.
bool is_reference(const StageRun& run, const KernelUnderTest& k) {
  const KernelImage &a = k.image, &b = run.req.reference.image;
  return a.entry == b.entry && a.cubin == b.cubin && a.ptx == b.ptx && a.emu_object == b.emu_object;
}

// Said in the verdict, so that nobody reads emu's few samples as a GPU measurement.
void note_cpu_timing(const StageRun& run, Verdict& v, bool warm_up_was_sample) {
  if (!times_on_cpu(run.device.info())) return;
  v.detail["timing_samples"] = fmt::format(
      "{} samples of CPU time{}, no re-measuring: emu's times decide nothing about a GPU, so its time "
      "goes to checking",
      v.timing.runs, warm_up_was_sample ? " (the warm-up's launch: a launch of 100 ms or more)" : "");
}

InputDraw timing_draw(const StageRun& run) {
  return {run.req.seeds.empty() ? 1 : run.req.seeds.front(), nullptr, timing_index_modes(run.op), {}};
}

std::vector<HostTensor> timing_inputs(StageRun& run) {
  const InputDraw draw = timing_draw(run);
  return generate_inputs(run.op, run.req.shape, draw.seed, draw.input_case, draw.modes, nullptr, 0, &run.shared_operands);
}

// The reference's results on the timing inputs. Where the reference stage's first check drew the
// same inputs (no sequence lengths for the timing to fill), they are that check's: a draw is a
// function of its seed, and the reference launch they came from need not run again.
RunResult reference_on_timing_inputs(StageRun& run, const std::vector<HostTensor>& host) {
  const InputDraw draw = timing_draw(run);
  if (run.first && !run.first->expected.empty() && run.first->draw.seed == draw.seed && !run.first->draw.input_case &&
      run.first->draw.modes == draw.modes && run.first->draw.scalars.empty())
    return run.first->expected.front();
  return run.run_reference(run.req.shape, host);
}

}  // namespace

void timing_stage(StageRun& run, Verdict& v) {
  run.stage("timing");
  const auto host = timing_inputs(run);
  KernelTiming t = prepare(run, *run.candidate, run.req.candidate, "the candidate", host);
  run.launching("the candidate's timed launches", run.req.shape);
  v.timing = measure(run.device, t.timed(), run.req.timing);
  run.timed_launches = v.timing.runs * t.plan.launches_per_sample;
  if (!is_reference(run, run.req.candidate))
    check_timed_outputs(run, t, host, reference_on_timing_inputs(run, host), v.timing.runs);
  const double bytes = static_cast<double>(run.op.bytes.eval(run.req.shape));
  const double flops = static_cast<double>(run.op.flops.eval(run.req.shape));
  const std::string impossible = impossible_speed(v.timing.median_ms, bytes, flops, run.device.info());
  if (!impossible.empty()) {
    Verdict failed = Verdict::failed("timing", impossible);
    failed.timing = v.timing;
    throw StageFailure{failed};
  }
  if (run.device.info().copy_bandwidth_gbs <= 0) v.detail["impossible_speed_check"] = "skipped: the device's bandwidth is unknown";
  note_cpu_timing(run, v, t.plan.warm_up_is_sample);
}

void timing_against_baseline_stage(StageRun& run, Verdict& v) {
  run.stage("timing");
  const auto host = timing_inputs(run);
  const KernelUnderTest& baseline = run.req.baseline ? *run.req.baseline : run.req.reference;
  KernelTiming cand = prepare(run, *run.candidate, run.req.candidate, "the candidate", host);
  KernelTiming base = prepare(run, *run.baseline, baseline, "the baseline", host);
  run.launching("the candidate and the baseline, timed in turns,", run.req.shape);
  auto [c, b] = time_interleaved(run.device, cand.timed(), base.timed(), run.req.timing);
  run.timed_launches = c.runs * cand.plan.launches_per_sample;
  const RunResult expected = reference_on_timing_inputs(run, host);
  if (!is_reference(run, run.req.candidate)) check_timed_outputs(run, cand, host, expected, c.runs);
  if (!is_reference(run, baseline)) check_timed_outputs(run, base, host, expected, b.runs);
  v.timing = c;
  note_cpu_timing(run, v, cand.plan.warm_up_is_sample && base.plan.warm_up_is_sample);
  v.detail["baseline"] = {{"median_ms", b.median_ms}, {"min_ms", b.min_ms}, {"spread", b.spread}, {"runs", b.runs}};
}

}  // namespace hone
