#include "validator/evaluation.hpp"

#include "validator/consistency_stage.hpp"
#include "validator/hidden_stage.hpp"
#include "validator/reference_stage.hpp"
#include "validator/stage_run.hpp"
#include "validator/timing_stage.hpp"

namespace hone {

Verdict evaluate(Device& device, const EvaluationRequest& req, const StageListener& on_stage) {
  StageRun run(device, req, on_stage);
  run.stage("load");
  run.op = load_op_spec(req.spec_dir);
  run.op.check_shape(req.shape);
  Verdict v;
  try {
    run.candidate = device.load(req.candidate.image);
    if (req.check) {
      run.reference = device.load(req.reference.image);
      reference_stage(run, v);
      hidden_stage(run);
      consistency_stage(run);
    }
    if (req.time_against_reference) {
      run.reference = device.load(req.reference.image);
      timing_against_reference_stage(run, v);
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
  // A passing verdict names the stage that produced its figures: the timing, when there was one.
  v.stage = req.time || req.time_against_reference ? "timing" : run.current;
  return v;
}

}  // namespace hone
