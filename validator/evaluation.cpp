#include "validator/evaluation.hpp"

#include "core/input_error.hpp"
#include "validator/consistency_stage.hpp"
#include "validator/hidden_stage.hpp"
#include "validator/reference_stage.hpp"
#include "validator/stage_run.hpp"
#include "validator/timing_stage.hpp"
#include "validator/watched_device.hpp"

namespace hone {

Verdict evaluate(Device& plain_device, const EvaluationRequest& req, const StageListener& on_stage,
                 const LaunchListener& on_launch) {
  std::unique_ptr<WatchedDevice> watched;
  if (req.launch_limit_s > 0) watched = std::make_unique<WatchedDevice>(plain_device, req.launch_limit_s, req.launch_limit_basis);
  Device& device = watched ? *watched : plain_device;
  StageRun run(device, req, on_stage);
  run.watched = watched.get();
  run.on_launch = on_launch;
  run.stage("load");
  run.op = load_op_spec(req.spec_dir);
  if (!req.spec_hash.empty() && run.op.content_hash != req.spec_hash)
    throw InputError((req.spec_dir / "spec.json").string() + ": the op spec changed on disk after the job loaded it (" +
                     "its content hash is " + run.op.content_hash.substr(0, 12) + ", the job's " + req.spec_hash.substr(0, 12) +
                     "): restart the job, or this candidate would be judged by other rules than the rest");
  run.op.check_shape(req.shape);
  Verdict v;
  try {
    run.candidate = device.load(req.candidate.image);
    // Every timing compares the timed launches' outputs with the reference's.
    if (req.check || req.time || req.time_against_baseline) run.reference = device.load(req.reference.image);
    if (req.check) {
      reference_stage(run, v);
      hidden_stage(run);
      consistency_stage(run);
    }
    if (req.time_against_baseline) {
      run.baseline = device.load(req.baseline ? req.baseline->image : req.reference.image);
      timing_against_baseline_stage(run, v);
    } else if (req.time) {
      timing_stage(run, v);
    }
    if (req.check && req.time) after_timing_check(run);
  } catch (const StageFailure& f) {
    Verdict failed = f.verdict;
    failed.detail.update(v.detail);
    return failed;
  } catch (const std::exception& e) {
    return Verdict::failed(run.current, std::string("kernel fault: ") + e.what());
  }
  v.pass = true;
  if (!run.worst_bias.is_null()) v.detail["error_bias"] = run.worst_bias;
  // A passing verdict names the stage that produced its figures: the timing, when there was one.
  v.stage = req.time || req.time_against_baseline ? "timing" : run.current;
  return v;
}

}  // namespace hone
