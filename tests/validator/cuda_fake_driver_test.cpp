// The cuda worker through the test double of the driver (tests/support/fake_libcuda.cpp), on any
// machine: loading, launching, event timing, replayed batches and the physical floor, and a fault
// or a hang costing one candidate and its worker. The double runs no kernel code, so a kernel is
// only timed here (check = false); checking kernels on a GPU is cuda_worker_test.cpp's.
#include <doctest/doctest.h>

#include <string>

#include "core/paths.hpp"
#include "validator/worker.hpp"
#include "rmsnorm_variants.hpp"
#include "support/scoped_env.hpp"

using namespace hone;

namespace {

struct FakeGpu {
  // The workers started in a test inherit it; this process never loads the driver through it.
  test::ScopedEnv driver{"HONE_LIBCUDA", HONE_FAKE_LIBCUDA};
  OpSpec op = load_op(templates_root(), "rmsnorm");

  // Times `entry` at 64 x 4096 (no checking: the double computes nothing), alone or in turns
  // with the reference.
  EvaluationRequest timing(const std::string& entry, bool against_reference = false) const {
    EvaluationRequest r = check(entry);
    r.check = false;
    r.time_against_reference = against_reference;
    return r;
  }

  EvaluationRequest check(const std::string& entry) const {
    return test::rmsnorm_request(op, test::rmsnorm_variant(entry), {{"tokens", 64}, {"hidden", 4096}}, "sm_90", "cuda");
  }
};

}  // namespace

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a 5 us kernel is timed in replayed batches, the flush left out") {
  // 5 us is under the batching threshold: samples are CUDA graphs of 40 launches, each the mean.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "5");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("rmsnorm_right"));
  REQUIRE_MESSAGE(v.pass, v.reason);
  CHECK(v.timing.timer == "gpu");
  CHECK(v.timing.runs >= 30);
  CHECK(v.timing.median_ms == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(v.timing.spread == doctest::Approx(0).epsilon(1e-6));
  CHECK_FALSE(v.detail.contains("impossible_speed_check"));  // the measured copy rate was known

  Verdict turns = w.evaluate(timing("rmsnorm_right", true));
  REQUIRE_MESSAGE(turns.pass, turns.reason);
  CHECK(turns.timing.median_ms == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(turns.detail["baseline"]["median_ms"].get<double>() == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a 50 us kernel is timed launch by launch, the L2 flush outside the events") {
  // The double's flush of 8 MiB takes 4.2 us of its clock: inside the events it would show.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "50");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("rmsnorm_right"));
  REQUIRE_MESSAGE(v.pass, v.reason);
  CHECK(v.timing.median_ms == doctest::Approx(0.05).epsilon(1e-4));
  CHECK(v.timing.min_ms == doctest::Approx(0.05).epsilon(1e-4));
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a time below bytes over the measured copy rate is impossible") {
  // 64 x 4096 bf16 in and out is about 1 MB: at most 2500 GB/s (1.25 x the double's 2000) allows
  // 0.42 us, and the kernel claims 0.01 us.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "0.01");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("rmsnorm_right"));
  CHECK_FALSE(v.pass);
  CHECK(v.stage == "timing");
  CHECK_MESSAGE(v.reason.find("impossible speed") != std::string::npos, v.reason);
  CHECK_MESSAGE(v.reason.find("measured copy rate of 2000 GB/s") != std::string::npos, v.reason);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): an illegal address costs one candidate and its worker, the next runs in a new one") {
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict crashed = w.evaluate(check("rmsnorm_crashes"));
  CHECK_FALSE(crashed.pass);
  CHECK_MESSAGE(crashed.reason.find("CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)") != std::string::npos,
                crashed.reason);
  CHECK_MESSAGE(crashed.reason.find("after launching 'rmsnorm_crashes'") != std::string::npos, crashed.reason);
  Verdict next = w.evaluate(timing("rmsnorm_right"));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a fault by a code hone does not know is found by a probe, the worker replaced") {
  // CUDA_ERROR_UNKNOWN is on no list of sticky errors; the faulted context fails the probe.
  test::ScopedEnv code("HONE_FAKE_CUDA_FAULT", "999");  // CUDA_ERROR_UNKNOWN
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict crashed = w.evaluate(check("rmsnorm_crashes"));
  CHECK_FALSE(crashed.pass);
  CHECK_MESSAGE(crashed.reason.find("CUDA_ERROR_UNKNOWN") != std::string::npos, crashed.reason);
  Verdict next = w.evaluate(timing("rmsnorm_right"));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a kernel that never ends is stopped by the timeout, the worker replaced") {
  Worker w({"cuda", "sm_90", 2, {}});
  Verdict hung = w.evaluate(check("rmsnorm_hangs"));
  CHECK_FALSE(hung.pass);
  CHECK_MESSAGE(hung.reason.find("did not answer within 2 s") != std::string::npos, hung.reason);
  Verdict next = w.evaluate(timing("rmsnorm_right"));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}
