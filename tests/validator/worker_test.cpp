#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "runtime/kernel_build.hpp"
#include "validator/static_stage.hpp"
#include "validator/worker.hpp"
#include "rmsnorm_variants.hpp"

using namespace hone;

namespace {

const Bindings kShape{{"tokens", 5}, {"hidden", 256}};

struct Fixture {
  OpSpec op = load_op(templates_root(), "rmsnorm");

  Candidate candidate(const std::string& entry) const { return test::rmsnorm_variant(entry); }

  KernelBuild build(const Candidate& c) const { return build_kernel(static_build_request(op, c, "sm_90", "emu")); }

  EvaluationRequest request(const Candidate& c) const {
    EvaluationRequest r = test::rmsnorm_request(op, c, kShape, "sm_90", "emu");
    r.timing.repeats = 3;
    r.timing.warmup_ms = 0;
    return r;
  }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "worker: a right kernel passes and is timed on the CPU clock") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_right")));
  CHECK_MESSAGE(v.pass, v.reason);
  CHECK(v.stage == "timing");
  CHECK(v.timing.runs >= 3);
  CHECK(v.timing.median_ms > 0);
  CHECK(v.timing.timer == "cpu");
}

TEST_CASE_FIXTURE(Fixture, "worker: a wrong kernel fails the reference stage with its worst element") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_no_weight")));
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "reference");
  CHECK(v.worst.buffer == "out");
  CHECK(v.reason.find("differ from the reference") != std::string::npos);
  CHECK(v.worst.got != doctest::Approx(v.worst.expected));
}

TEST_CASE_FIXTURE(Fixture, "worker: outputs left unwritten keep the poison and fail") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_skips_last_row")));
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "reference");
  CHECK(v.worst.index.rfind("[4, ", 0) == 0);  // the last of 5 rows
  CHECK(std::isnan(v.worst.got));
}

TEST_CASE_FIXTURE(Fixture, "worker: a crashing kernel costs one candidate, and the next one runs in a new worker") {
  Worker w({"emu", "sm_90", 60, {}});
  // It writes through a null pointer: the fault ends the worker, and the verdict names the access.
  Verdict crash = w.evaluate(request(candidate("rmsnorm_crashes")));
  CHECK_FALSE(crash.pass);
  CHECK(crash.stage == "reference");
  CHECK_MESSAGE(crash.reason.find("out-of-bounds write to address 0x0") != std::string::npos, crash.reason);
  Verdict next = w.evaluate(request(candidate("rmsnorm_right")));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(Fixture, "worker: a hanging kernel is killed at the timeout") {
  Worker w({"emu", "sm_90", 2, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_hangs")));
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "worker");
  CHECK_MESSAGE(v.reason.find("did not answer within 2 s") != std::string::npos, v.reason);
  Verdict next = w.evaluate(request(candidate("rmsnorm_right")));
  CHECK_MESSAGE(next.pass, next.reason);
}

TEST_CASE_FIXTURE(Fixture, "worker: an evaluation longer than the timeout passes when no launch in it is") {
  // About 10 launches of 250 ms each (one timed: a CPU clock's launch of 100 ms or more is its
  // warm-up's): longer in all than the 2 s limit, none of them silent for 2 s.
  Worker w({"emu", "sm_90", 2, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_right_slowly")));
  CHECK_MESSAGE(v.pass, v.reason);
  CHECK(v.detail.at("evaluation_seconds").get<double>() > 2.0);
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(Fixture, "worker: barrier divergence is a kernel fault with its reason") {
  Worker w({"emu", "sm_90", 60, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_diverges")));
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "reference");
  CHECK_MESSAGE(v.reason.find("kernel fault") != std::string::npos, v.reason);
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(Fixture, "static: a kernel with another signature fails at compile time, saying which") {
  Candidate c = candidate("rmsnorm_bad_signature");
  KernelBuild b = build(c);
  Verdict v = static_verdict(op, c, b, kShape);
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "static");
  CHECK_MESSAGE(v.reason.find("must have the signature of rmsnorm") != std::string::npos, v.reason);
}

TEST_CASE_FIXTURE(Fixture, "static: resource limits are enforced with the numbers") {
  Candidate c = candidate("rmsnorm_right");
  KernelBuild b = build(c);
  REQUIRE(b.ok());
  CHECK(static_verdict(op, c, b, kShape).pass);
  StaticLimits tight;
  tight.max_registers = 1;
  Verdict v = static_verdict(op, c, b, kShape, tight);
  CHECK_FALSE(v.pass);
  CHECK(v.reason.find("registers per thread (limit 1)") != std::string::npos);
  c.launch.smem = Expr::constant(64 * 1024);
  v = static_verdict(op, c, b, kShape);
  CHECK_FALSE(v.pass);
  CHECK(v.reason.find("shared memory") != std::string::npos);
}
