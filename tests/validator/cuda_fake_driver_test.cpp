// The cuda worker through the test double of the driver (tests/support/fake_libcuda.cpp), on any
// machine: loading, launching, event timing, replayed batches and the physical floor, a fault or
// a hang costing one candidate and its worker, and the timing's defence: every timed launch, in
// replayed batches too, finds its output poisoned and its in-out buffers fresh, and its outputs
// are compared with the reference's. The double computes only the test ops of
// tests/data/validator/fake_ops (by kernel name); checking real kernels on a GPU is
// cuda_worker_test.cpp's.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <unistd.h>

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

  // Checks and times `entry` of the test op `family` ("twice", "accumulate") at n elements.
  EvaluationRequest fake_op(const std::string& family, const std::string& entry, std::int64_t n = 4096) const {
    const OpSpec spec = load_op_spec(test::test_data_dir() + "/validator/fake_ops/" + family);
    Candidate c = reference_candidate(spec);
    c.origin = "user";
    c.entry = entry;
    c.source = read_text_file(spec.dir / (family + ".cu"));
    EvaluationRequest r = test::rmsnorm_request(spec, c, {{"n", n}}, "sm_90", "cuda");
    r.buckets = {{"n", {n, n}}};
    r.timing.repeats = 3;
    return r;
  }

  // Times `entry` of twice (which the double computes), alone or in turns with the reference.
  EvaluationRequest timing(const std::string& entry, bool against_reference = false) const {
    EvaluationRequest r = fake_op("twice", entry, 16384);
    r.check = false;
    r.time_against_baseline = against_reference;
    r.time = !against_reference;
    return r;
  }

  EvaluationRequest check(const std::string& entry) const {
    return test::rmsnorm_request(op, test::rmsnorm_variant(entry), {{"tokens", 64}, {"hidden", 4096}}, "sm_90", "cuda");
  }
};

// The double's trace of what the stream ran (HONE_FAKE_CUDA_TRACE), one line each.
struct Trace {
  std::string file = "/tmp/hone-fake-trace-" + std::to_string(::getpid()) + ".txt";
  test::ScopedEnv env{"HONE_FAKE_CUDA_TRACE", file.c_str()};
  Trace() { std::remove(file.c_str()); }
  ~Trace() { std::remove(file.c_str()); }
  std::vector<std::string> lines() const {
    std::ifstream in(file);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

bool starts(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a 5 us kernel is timed in replayed batches, the flush left out") {
  // 5 us is under the batching threshold: samples are CUDA graphs of 40 launches, each the mean.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "5");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("twice_honest"));
  REQUIRE_MESSAGE(v.pass, v.reason);
  CHECK(v.timing.timer == "gpu");
  CHECK(v.timing.runs >= 30);
  CHECK(v.timing.median_ms == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(v.timing.spread == doctest::Approx(0).epsilon(1e-6));
  CHECK_FALSE(v.detail.contains("impossible_speed_check"));  // the measured copy rate was known

  Verdict turns = w.evaluate(timing("twice_honest", true));
  REQUIRE_MESSAGE(turns.pass, turns.reason);
  CHECK(turns.timing.median_ms == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(turns.detail["baseline"]["median_ms"].get<double>() == doctest::Approx(0.005).epsilon(1e-4));
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a 50 us kernel is timed launch by launch, the L2 flush outside the events") {
  // The double's flush of 8 MiB takes 4.2 us of its clock: inside the events it would show.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "50");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("twice_honest"));
  REQUIRE_MESSAGE(v.pass, v.reason);
  CHECK(v.timing.median_ms == doctest::Approx(0.05).epsilon(1e-4));
  CHECK(v.timing.min_ms == doctest::Approx(0.05).epsilon(1e-4));
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a time below bytes over the measured copy rate is impossible") {
  // 16384 floats in and out is 128 KiB: at most 2500 GB/s (1.25 x the double's 2000) allows
  // 0.052 us, and the kernel claims 0.01 us.
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "0.01");
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(timing("twice_honest"));
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
  Verdict next = w.evaluate(timing("twice_honest"));
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
  Verdict next = w.evaluate(timing("twice_honest"));
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a kernel that never ends is stopped by the timeout, the worker replaced") {
  Worker w({"cuda", "sm_90", 2, {}});
  Verdict hung = w.evaluate(check("rmsnorm_hangs"));
  CHECK_FALSE(hung.pass);
  CHECK_MESSAGE(hung.reason.find("did not answer within 2 s") != std::string::npos, hung.reason);
  EvaluationRequest small = fake_op("twice", "twice_honest");  // well inside the 2 s on a loaded machine
  small.check = false;
  Verdict next = w.evaluate(small);
  CHECK_MESSAGE(next.pass, next.reason);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a hang is cut off at the launch limit, not the evaluation's, and says where") {
  Worker w({"cuda", "sm_90", 60, {}});
  EvaluationRequest r = check("rmsnorm_hangs");
  r.launch_limit_s = 1;
  r.launch_limit_basis = "the limit is what this test says";
  const auto start = std::chrono::steady_clock::now();
  Verdict hung = w.evaluate(r);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_FALSE(hung.pass);
  CHECK(hung.stage == "reference");
  CHECK_MESSAGE(hung.reason.find("hang: the candidate at tokens=64,hidden=4096 in the reference stage ran for 1 s") == 0, hung.reason);
  CHECK_MESSAGE(hung.reason.find("the limit is what this test says") != std::string::npos, hung.reason);
  CHECK(seconds < 30);
  CHECK(w.evaluate(timing("twice_honest")).pass);
  CHECK(w.started() == 2);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): every timed launch of a replayed batch finds its output poisoned, "
                           "never the last result, and the restoring copies stay outside the events") {
  test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", "5");
  Trace trace;
  Worker w({"cuda", "sm_90", 60, {}});
  Verdict v = w.evaluate(fake_op("twice", "twice_honest"));
  REQUIRE_MESSAGE(v.pass, v.stage << ": " << v.reason);
  CHECK(v.timing.runs >= 30);
  const auto lines = trace.lines();
  // A sample: the graph's first replay (untimed), the copies that restore every launch's
  // output, the L2 flush, then the events around the timed replay with nothing but kernels.
  int samples = 0, timed_kernels = 0, found_nan = 0, found_number = 0, found_result = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!starts(lines[i], "graph ")) continue;
    const int launches = std::stoi(lines[i].substr(6));
    // The timed replay: the start event just before it, after the flush (the first replay
    // follows the previous sample's kernels).
    const bool timed = i > 1 && lines[i - 1] == "event" && starts(lines[i - 2], "memset ");
    if (!timed) continue;
    ++samples;
    std::size_t j = i - 2;
    int copies = 0;
    while (j > 0 && starts(lines[j - 1], "copy ")) {
      --j;
      ++copies;
    }
    CHECK(copies == launches);  // one output each
    for (int k = 1; k <= launches; ++k) {
      REQUIRE(i + k < lines.size());
      const std::string& line = lines[i + k];
      REQUIRE_MESSAGE(starts(line, "kernel twice_honest found "), line);
      ++timed_kernels;
      found_nan += line.find("found nan") != std::string::npos;
      found_number += line.find("found number") != std::string::npos;
      found_result += line.find("found result") != std::string::npos;
    }
    CHECK(lines[i + launches + 1] == "event");
  }
  CHECK(samples >= 30);
  CHECK(found_result == 0);  // never the output of an earlier launch
  CHECK(found_nan > 0);
  CHECK(found_number > 0);   // finite garbage too: "is it NaN" tells a kernel nothing
  MESSAGE(samples << " timed samples, " << timed_kernels << " timed launches: " << found_nan << " found NaN, " << found_number
                  << " finite garbage, none the last result");
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): a kernel that does less work when its output holds a number fails at "
                           "timing, in replayed batches and launch by launch") {
  Worker w({"cuda", "sm_90", 60, {}});
  for (const char* us : {"5", "50"}) {
    CAPTURE(us);
    test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", us);
    for (const char* entry : {"twice_skips_when_filled", "twice_skips_half_when_filled"}) {
      CAPTURE(entry);
      Verdict v = w.evaluate(fake_op("twice", entry));
      CHECK_FALSE(v.pass);
      CHECK(v.stage == "timing");
      CHECK_MESSAGE(v.reason.find("poisoned with finite numbers before each sample") != std::string::npos, v.reason);
      CHECK_MESSAGE(v.reason.find("a timed launch must do the work a checked launch does") != std::string::npos, v.reason);
    }
    CHECK(w.evaluate(fake_op("twice", "twice_honest")).pass);
  }
  CHECK(w.started() == 1);
}

TEST_CASE_FIXTURE(FakeGpu, "cuda worker (driver double): every timed launch starts from a fresh copy of its in-out buffer") {
  // accumulate adds into its state: a launch that found the state another launch left would
  // write initial + 2x, and its timed outputs would not match.
  Worker w({"cuda", "sm_90", 60, {}});
  for (const char* us : {"5", "50"}) {
    CAPTURE(us);
    test::ScopedEnv kernel_us("HONE_FAKE_CUDA_KERNEL_US", us);
    Verdict v = w.evaluate(fake_op("accumulate", "accumulate_honest"));
    CHECK_MESSAGE(v.pass, v.stage << ": " << v.reason);
    CHECK(v.timing.runs >= 30);
  }
}
