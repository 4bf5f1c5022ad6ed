// The expected job time: a roofline per launch, times launches per kernel, over the job's
// kernels; an unknown rate gives no number; emu's rate comes from launches measured on it.
#include <doctest/doctest.h>

#include "validator/device_rate.hpp"
#include "validator/job_estimate.hpp"
#include "validator/timing_plan.hpp"

using namespace hone;

namespace {

DeviceRate rate_of(double gbs, double gflops) { return {gbs * 1e9, gflops * 1e9, "test"}; }

}  // namespace

TEST_CASE("job estimate: a launch is as slow as the slower of its bytes and its flops") {
  const DeviceRate r = rate_of(1, 10);
  CHECK(launch_seconds({1e9, 1e9, 1}, r) == doctest::Approx(1.0));    // bytes bound
  CHECK(launch_seconds({1e9, 1e11, 1}, r) == doctest::Approx(10.0));  // flops bound
}

TEST_CASE("job estimate: grows with the bytes of a task and with its candidates") {
  const DeviceRate r = rate_of(2, 100);
  const JobEstimate small = estimate_job({{1e8, 1e6, 3}}, r, 10);
  const JobEstimate large = estimate_job({{4e8, 1e6, 3}}, r, 10);
  const JobEstimate more = estimate_job({{1e8, 1e6, 6}}, r, 10);
  REQUIRE(small.known);
  CHECK(small.seconds == doctest::Approx(1e8 / 2e9 * 3 * 10));
  CHECK(large.seconds == doctest::Approx(4 * small.seconds));
  CHECK(more.seconds == doctest::Approx(2 * small.seconds));
  CHECK(more.candidates == 6);
  CHECK(estimate_job({{1e8, 1e6, 3}}, r, 20).seconds == doctest::Approx(2 * small.seconds));
}

TEST_CASE("job estimate: sums its tasks") {
  const DeviceRate r = rate_of(1, 1);
  const JobEstimate e = estimate_job({{1e9, 0, 1}, {2e9, 0, 2}}, r, 1);
  CHECK(e.tasks == 2);
  CHECK(e.candidates == 3);
  CHECK(e.seconds == doctest::Approx(5.0));
}

TEST_CASE("job estimate: an unknown rate says so instead of giving a number") {
  const DeviceRate unknown = launch_rate(DeviceInfo{"none", "sm_90", "sm_90", ""});
  CHECK_FALSE(unknown.known());
  const JobEstimate e = estimate_job({{1e9, 1e9, 5}}, unknown);
  CHECK_FALSE(e.known);
  const auto lines = estimate_lines(e, unknown, "none:sm_90", "5 kernels");
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("not estimated") != std::string::npos);
  CHECK(lines[0].find("static checks only") != std::string::npos);
  CHECK(lines[0].find(" s ") == std::string::npos);
}

TEST_CASE("job estimate: on device none only the compiles count, and NVRTC's time is measured") {
  const DeviceRate none = device_rate(DeviceInfo{"none", "sm_90", "sm_90", ""});
  REQUIRE(none.compile_s > 0);
  CHECK_FALSE(none.launches_known());
  const JobEstimate e = estimate_job({{1e12, 1e12, 5}, {1, 1, 3}}, none);
  CHECK(e.known);
  CHECK_FALSE(e.launches);
  CHECK(e.seconds == doctest::Approx(8 * none.compile_s));  // the bytes and flops cost nothing: nothing launches
  const auto lines = estimate_lines(e, none, "none:sm_90", "the entry's kernel");
  REQUIRE(lines.size() == 2);
  CHECK_MESSAGE(lines[1].find("and no launches") != std::string::npos, lines[1]);
}

TEST_CASE("job estimate: each kernel adds its compile") {
  DeviceRate r = rate_of(1, 1);
  const double without = estimate_job({{1e9, 0, 2}}, r, 1).seconds;
  r.compile_s = 0.5;
  CHECK(estimate_job({{1e9, 0, 2}}, r, 1).seconds == doctest::Approx(without + 1.0));
}

TEST_CASE("job estimate: each kernel adds the host's passes over the task's buffers, where kernels run") {
  DeviceRate r = rate_of(1, 1);
  const TaskWork moe{1e6, 0, 2, 2e9};  // a launch reads little, the buffers hold 2 GB
  const double without = estimate_job({moe}, r, 1).seconds;
  r.host_bytes_per_s = 1e9;
  CHECK(host_seconds(moe, r) == doctest::Approx(kHostPassesPerCandidate * 2.0));
  CHECK(estimate_job({moe}, r, 1).seconds == doctest::Approx(without + 2 * kHostPassesPerCandidate * 2.0));
  const auto lines = estimate_lines(estimate_job({moe}, r, 1), r, "emu:cpu", "2 kernels");
  CHECK_MESSAGE(lines[1].find("comparing every buffer 6 times a kernel at 1 GB/s") != std::string::npos, lines[1]);

  DeviceRate none = r;  // nothing launches: no inputs are drawn
  none.bytes_per_s = none.flops_per_s = 0;
  none.compile_s = 0.5;
  CHECK(estimate_job({moe}, none, 1).seconds == doctest::Approx(1.0));
}

TEST_CASE("job estimate: the host's rate is measured where kernels run") {
  CHECK(measure_host_rate(1 << 16) > 1e6);  // more than a megabyte a second on any machine
}

TEST_CASE("job estimate: a known rate prints the time and what it assumes") {
  const JobEstimate e = estimate_job({{3e9, 0, 2}}, rate_of(1, 1), 24);
  const auto lines = estimate_lines(e, rate_of(1, 1), "emu:cpu", "a candidate and the reference");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].find("about 2 min 24 s") != std::string::npos);
  CHECK(lines[1].find("24 launches per kernel") != std::string::npos);
  CHECK(lines[0].find("compile time unknown") != std::string::npos);
  CHECK(lines[1].find("a candidate and the reference per task") != std::string::npos);
  CHECK(lines[1].find("left out") == std::string::npos);
  const auto short_job = estimate_lines(estimate_job({{1e6, 0, 1}}, rate_of(1, 1), 24), rate_of(1, 1), "emu:cpu", "one", "2 tasks left out");
  CHECK_MESSAGE(short_job[0].find("expected time on emu:cpu: under 1 s for 1 tasks") == 0, short_job[0]);
  CHECK(short_job[1].find("; 2 tasks left out") != std::string::npos);
}

TEST_CASE("job estimate: durations in words") {
  CHECK(duration_words(0.2) == "under 1 s");
  CHECK(duration_words(42) == "42 s");
  CHECK(duration_words(125) == "2 min 5 s");
  CHECK(duration_words(7322) == "2 h 2 min");
}

TEST_CASE("job pace: the time left is the estimate's for the rest, scaled by how the finished tasks kept to theirs") {
  JobPace pace;
  CHECK(pace.line().empty());  // nothing finished yet
  pace.expected_done = 10;
  pace.expected_left = 30;
  pace.elapsed = 25;
  CHECK(pace.line() == "25 s so far, 2.5x the estimate: about 1 min 15 s left at this pace");
  pace.elapsed = 5;
  CHECK(pace.line() == "5 s so far, 0.5x the estimate: about 15 s left at this pace");
  pace.expected_left = 0;
  CHECK(pace.line().empty());  // the last task is done
}

TEST_CASE("job estimate: a cuda device's rate is its copy bandwidth and peak arithmetic") {
  DeviceInfo d{"cuda", "NVIDIA H200", "sm_90", "gpu"};
  d.copy_bandwidth_gbs = 4000;
  d.peak_gflops = 1e6;
  const DeviceRate r = device_rate(d);
  CHECK(r.bytes_per_s == doctest::Approx(4e12));
  CHECK(r.flops_per_s == doctest::Approx(1e15));
  d.copy_bandwidth_gbs = d.peak_bandwidth_gbs = d.peak_gflops = 0;
  CHECK_FALSE(launch_rate(d).known());
}

TEST_CASE("job estimate: emu's rate is measured by launches on the emulator") {
  const DeviceRate r = measure_emu_rate(1 << 14, 16);
  CHECK(r.bytes_per_s > 0);
  CHECK(r.flops_per_s > 0);
  CHECK(r.source.find("emu") != std::string::npos);
  MESSAGE("emu: " << r.bytes_per_s / 1e9 << " GB/s, " << r.flops_per_s / 1e9 << " GFLOP/s");
  const DeviceRate full = device_rate(DeviceInfo{"emu", "cpu", "sm_90", "cpu"});
  MESSAGE("emu at the job's calibration: " << full.bytes_per_s / 1e9 << " GB/s, " << full.flops_per_s / 1e9 << " GFLOP/s");
}

TEST_CASE("job estimate: a baseline is compiled and timed, not evaluated: its launches and two draws, not a candidate's checks") {
  DeviceRate r = rate_of(1, 1);  // rate_of(GB/s, GFLOP/s)
  r.compile_s = 0.5;
  r.host_bytes_per_s = 1e9;
  TaskWork task{1e9, 0, 2, 1e9, 30, 10};  // a launch moves 1 GB: 1 s
  const double candidates = estimate_job({task}, r).seconds;
  CHECK(candidates == doctest::Approx(2 * (0.5 + 30 * 1.0 + 10 * 1.0)));
  task.baselines = 1;
  task.baseline_launches = 7;
  const JobEstimate with = estimate_job({task}, r);
  CHECK(with.seconds == doctest::Approx(candidates + 0.5 + 7 * 1.0 + 2 * 1.0));
  CHECK(with.candidates == 3);  // kernels, as the first line counts them
}

TEST_CASE("timing plan: what an estimate counts after the warm-up: a CPU clock's samples, none for a long launch, a GPU's") {
  hone::DeviceInfo emu;
  emu.kind = "emu";
  emu.timer = "cpu";
  CHECK(samples_after_warm_up(emu, 5) == kCpuSamples);
  CHECK(samples_after_warm_up(emu, kCpuLongLaunchMs) == 0);
  hone::DeviceInfo gpu;
  gpu.kind = "cuda";
  gpu.timer = "gpu";
  CHECK(samples_after_warm_up(gpu, kCpuLongLaunchMs * 10) == kMinGpuSamples);
}
