// What one kernel's evaluation costs, counted from the checks the validator makes
// (validator/evaluation_work.hpp): the counts follow the op's input cases, dynamic dims, index
// inputs and chain, not one figure for every op.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "validator/evaluation_work.hpp"
#include "validator/job_estimate.hpp"
#include "validator/timing_plan.hpp"

using namespace hone;

TEST_CASE("evaluation work: a shape with one size is its seeds' and cases' checks, one rerun, the timing and one check after") {
  const OpSpec op = load_op(templates_root(), "gemv");
  REQUIRE(op.chain_calls == 1);
  REQUIRE(op.aliases.empty());
  const Bindings shape{{"M", 1}, {"N", 64}, {"K", 64}};
  const std::map<std::string, Bucket> one{{"M", {1, 1}}};  // no other size to test inside the bucket
  const double checks = 2 + op.input_cases.size() + op.hidden_cases.size();  // hidden cases at the task's shape here
  const EvaluationWork cpu = evaluation_work(op, shape, one, 2, kCpuSamples);
  // Each check and the one after timing: the candidate's launch and the reference's.
  CHECK(cpu.launches == doctest::Approx(2.0 * (checks + 1) + 1 + 1 + kCpuSamples));
  CHECK(cpu.draws == doctest::Approx(checks + 1 + 1 + 1));
  const EvaluationWork gpu = evaluation_work(op, shape, one, 2, kMinGpuSamples);
  CHECK(gpu.launches - cpu.launches == doctest::Approx(kMinGpuSamples - kCpuSamples));
  CHECK(evaluation_work(op, shape, one, 3, kCpuSamples).launches == doctest::Approx(cpu.launches + 2));
  // A launch of 100 ms or more on a CPU clock: its warm-up is its one sample.
  CHECK(evaluation_work(op, shape, one, 2, 0).launches == doctest::Approx(cpu.launches - kCpuSamples));
}

TEST_CASE("evaluation work: hidden tests at smaller sizes count their share, and more dynamic dims and index modes make more checks") {
  const OpSpec gemv = load_op(templates_root(), "gemv");
  const Bindings shape{{"M", 8}, {"N", 64}, {"K", 64}};
  const EvaluationWork bucketed = evaluation_work(gemv, shape, {{"M", {5, 8}}}, 2, kCpuSamples);
  const EvaluationWork fixed = evaluation_work(gemv, shape, {{"M", {8, 8}}}, 2, kCpuSamples);
  CHECK(bucketed.launches > fixed.launches);             // M=5, 7 and one between are tested too
  CHECK(bucketed.launches < fixed.launches + 3 * 2.0);   // each at less than the task's size

  const OpSpec attention = load_op(templates_root(), "attention_decode");
  const Bindings at{{"batch", 64}, {"HQ", 32}, {"HKV", 8}, {"D", 128}, {"PAGE", 16}, {"MAXP", 2048}, {"q_stride", 6144}, {"page_stride", 16384}};
  const EvaluationWork paged = evaluation_work(attention, at, {{"batch", {33, 64}}, {"MAXP", {1025, 2048}}}, 2, kCpuSamples);
  MESSAGE("attention at batch 64, 32K tokens: " << paged.launches << " launches, " << paged.draws << " draws a kernel");
  CHECK(paged.launches > 1.5 * kLaunchesPerCandidate);  // the figure every task was given before
  CHECK(paged.draws > 2 * kHostPassesPerCandidate);
}

TEST_CASE("evaluation work: a chain of calls is that many launches and draws a check") {
  const OpSpec op = load_op(templates_root(), "gdn_gated_decode");
  REQUIRE(op.chain_calls == 3);
  const Bindings shape{{"B", 1}, {"H", 1}, {"HV", 2}, {"K", 16}, {"V", 16}, {"SLOTS", 5}};
  const EvaluationWork w = evaluation_work(op, shape, {{"B", {1, 1}}}, 2, kCpuSamples);
  CHECK(static_cast<long long>(std::llround(w.draws)) % 3 == 0);
  CHECK(w.draws >= 3 * (2 + op.input_cases.size() + 3));
}
