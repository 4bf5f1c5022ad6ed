// The cuda worker on a real GPU: a right kernel passes with GPU times, a kernel that faults the
// context costs its candidate and its worker, and the next candidate runs in a new one; a hang is
// ended by the timeout. Without a GPU every case says why it was skipped.
#include <doctest/doctest.h>

#include "core/paths.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_select.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "validator/worker.hpp"
#include "rmsnorm_variants.hpp"

using namespace hone;

namespace {

struct GpuFixture {
  std::string why = cuda_unavailable_reason();
  std::string arch;
  OpSpec op = load_op(templates_root(), "rmsnorm");

  GpuFixture() {
    if (!why.empty()) return;
    arch = compile_arch_for(make_cuda_device(0)->info().arch, nvrtc_supported_archs());
  }

  bool skip() const {
    if (why.empty()) return false;
    MESSAGE("skipped, no GPU here: " << why);
    return true;
  }

  Candidate candidate(const std::string& entry) const { return test::rmsnorm_variant(entry); }

  EvaluationRequest request(const Candidate& c) const {
    return test::rmsnorm_request(op, c, {{"tokens", 64}, {"hidden", 4096}}, arch, "cuda");
  }
};

}  // namespace

TEST_CASE_FIXTURE(GpuFixture, "cuda worker: a right kernel passes, timed by device events, and beats no physical floor") {
  if (skip()) return;
  Worker w({"cuda", arch, 120, {}});
  Verdict v = w.evaluate(request(candidate("rmsnorm_right")));
  REQUIRE_MESSAGE(v.pass, v.reason);
  CHECK(v.timing.timer == "gpu");
  CHECK(v.timing.runs >= 3);
  CHECK(v.timing.median_ms > 0);
  CHECK_FALSE(v.detail.contains("impossible_speed_check"));  // the floor was checked
  MESSAGE("rmsnorm_right at 64x4096: " << v.timing.median_ms << " ms, spread " << v.timing.spread);
  EvaluationRequest turns = request(candidate("rmsnorm_right"));
  turns.check = false;
  turns.time_against_baseline = true;
  Verdict t = w.evaluate(turns);
  REQUIRE_MESSAGE(t.pass, t.reason);
  CHECK(t.detail["baseline"]["median_ms"].get<double>() > 0);
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(GpuFixture, "cuda worker: an illegal address costs one candidate and its worker, and the next runs in a new one") {
  if (skip()) return;
  Worker w({"cuda", arch, 120, {}});
  Verdict crashed = w.evaluate(request(candidate("rmsnorm_crashes")));
  CHECK_FALSE(crashed.pass);
  CHECK_MESSAGE(crashed.reason.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos, crashed.reason);
  Verdict next = w.evaluate(request(candidate("rmsnorm_right")));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(GpuFixture, "cuda worker: a kernel that never ends is stopped by the timeout, and the worker replaced") {
  if (skip()) return;
  Worker w({"cuda", arch, 10, {}});
  Verdict hung = w.evaluate(request(candidate("rmsnorm_hangs")));
  CHECK_FALSE(hung.pass);
  CHECK_MESSAGE(hung.reason.find("did not answer within 10 s") != std::string::npos, hung.reason);
  Verdict next = w.evaluate(request(candidate("rmsnorm_right")));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(GpuFixture, "cuda worker: kernels that do less work when their output holds a number fail at timing on the GPU") {
  if (skip()) return;
  static const std::string source = read_text_file(test::test_data_dir() + "/validator/broken/rmsnorm_timing_attacks.cu");
  Worker w({"cuda", arch, 120, {}});
  for (const char* entry : {"rmsnorm_reads_output", "rmsnorm_half_when_timed"}) {
    CAPTURE(entry);
    Candidate c = candidate(entry);
    c.source = source;
    const Verdict v = w.evaluate(request(c));
    CHECK_FALSE(v.pass);
    CHECK(v.stage == "timing");
    CHECK_MESSAGE(v.reason.find("a timed launch must do the work a checked launch does") != std::string::npos, v.reason);
    MESSAGE(entry << ": " << v.reason.substr(0, 300));
  }
  Candidate control = candidate("rmsnorm_accumulates_in_output");
  control.source = source;
  const Verdict ok = w.evaluate(request(control));
  CHECK_MESSAGE(ok.pass, ok.stage << ": " << ok.reason);
  CHECK(w.started() == 1);
}
