// The timing method on recorded samples: statistics, the re-measure decision, when a kernel is
// timed in replayed batches and over how many argument sets, the ratio of an interleaved
// timing, and the physical floor.
#include <memory>
#include <stdexcept>

#include <doctest/doctest.h>

#include "validator/timing.hpp"
#include "validator/timing_plan.hpp"

namespace {

hone::DeviceInfo h200() {
  hone::DeviceInfo d;
  d.kind = "cuda";
  d.name = "NVIDIA H200";
  d.arch = "sm_90";
  d.timer = "gpu";
  d.copy_bandwidth_gbs = 4300;  // a device-to-device copy, read and write counted
  d.peak_bandwidth_gbs = 4800;  // the memory's clock and bus width
  d.peak_gflops = 2.1e6;
  d.l2_bytes = 60.0 * (1 << 20);
  d.replays_batches = true;
  return d;
}

hone::DeviceInfo emu() {
  hone::DeviceInfo d;
  d.kind = "emu";
  d.timer = "cpu";
  return d;
}

}  // namespace

TEST_CASE("timing statistics: median, minimum and spread of samples recorded on a GPU, an outlier included") {
  // 30 event timings of one kernel (ms), one of them hit by a clock change.
  std::vector<double> s = {0.0102, 0.0101, 0.0103, 0.0102, 0.0100, 0.0104, 0.0102, 0.0101, 0.0102, 0.0103,
                           0.0102, 0.0101, 0.0350, 0.0102, 0.0103, 0.0101, 0.0102, 0.0102, 0.0104, 0.0101,
                           0.0102, 0.0103, 0.0102, 0.0101, 0.0102, 0.0100, 0.0103, 0.0102, 0.0101, 0.0102};
  const hone::TimingStats t = hone::summarize_samples(s, "gpu");
  CHECK(t.runs == 30);
  CHECK(t.timer == "gpu");
  CHECK(t.median_ms == doctest::Approx(0.0102));
  CHECK(t.min_ms == doctest::Approx(0.0100));
  // p10 0.0101, p90 0.0103: the outlier moves neither the median nor the spread.
  CHECK(t.spread == doctest::Approx(0.0002 / 0.0102));
  hone::TimingOptions options;
  CHECK_FALSE(hone::needs_remeasure(t, options));
}

TEST_CASE("timing statistics: a measurement whose middle is spread wide is measured again") {
  const hone::TimingStats noisy = hone::summarize_samples({1.0, 1.4, 0.8, 1.9, 1.1, 0.7, 1.6, 1.2, 0.9, 2.0}, "gpu");
  hone::TimingOptions options;
  CHECK(noisy.spread > options.max_spread);
  CHECK(hone::needs_remeasure(noisy, options));
  options.max_spread = 2;
  CHECK_FALSE(hone::needs_remeasure(noisy, options));
}

TEST_CASE("timing plan: kernels of a few microseconds are replayed in batches over rotated inputs, longer ones launched alone") {
  const hone::TimingOptions options;
  // rmsnorm at one token: 16 KiB moved, 4 us a launch.
  const hone::TimingPlan tiny = hone::plan_timing(0.004, 16 * 1024, h200(), options);
  CHECK(tiny.launches_per_sample == 50);  // 0.2 ms of kernels per sample
  CHECK(tiny.input_sets == 50);           // as many sets as launches: far fewer than would fill L2 thrice
  CHECK(tiny.samples == hone::kMinGpuSamples);
  // A gemv reading 32 MiB of weights, 9 us: six sets move three times the 60 MiB L2.
  const hone::TimingPlan gemv = hone::plan_timing(0.009, 32.0 * (1 << 20), h200(), options);
  CHECK(gemv.launches_per_sample == 23);
  CHECK(gemv.input_sets == 6);
  // Past the threshold: one launch per sample, the L2 flushed before each, no rotation needed.
  const hone::TimingPlan longer = hone::plan_timing(hone::kBatchBelowMs, 16 * 1024, h200(), options);
  CHECK(longer.launches_per_sample == 1);
  CHECK(longer.input_sets == 1);
  // A working set larger than three times the L2 is never in it: one set.
  CHECK(hone::plan_timing(0.01, 200.0 * (1 << 20), h200(), options).input_sets == 1);
  // A launch too short for the clock (0 ms) still makes a bounded batch.
  CHECK(hone::plan_timing(0, 1024, h200(), options).launches_per_sample == 200);
  CHECK(hone::plan_timing(1e-9, 1024, h200(), options).launches_per_sample <= hone::kMaxBatchLaunches);
}

TEST_CASE("timing plan: a device that cannot replay batches times every launch alone, with the requested repeats") {
  hone::TimingOptions options;
  options.repeats = 7;
  hone::DeviceInfo d = h200();
  d.timer = "host";  // neither the GPU's events (30 samples at least) nor emu's CPU clock
  d.replays_batches = false;
  const hone::TimingPlan p = hone::plan_timing(0.001, 1024, d, options);
  CHECK(p.launches_per_sample == 1);
  CHECK(p.input_sets == 1);
  CHECK(p.samples == 7);
  CHECK(p.remeasures == options.remeasures);
}

TEST_CASE("timing plan: emu's CPU times get a few samples and are never measured again, and a GPU's plan is unchanged") {
  hone::TimingOptions options;
  options.repeats = 7;
  const hone::TimingPlan cpu = hone::plan_timing(0.001, 1024, emu(), options);
  CHECK(cpu.launches_per_sample == 1);
  CHECK(cpu.samples == hone::kCpuSamples);
  CHECK(cpu.remeasures == 0);
  options.repeats = 1;
  CHECK(hone::plan_timing(5.0, 1024, emu(), options).samples == 1);  // fewer asked for: fewer taken
  options.repeats = 7;
  const hone::TimingPlan gpu = hone::plan_timing(1.0, 1024, h200(), options);
  CHECK(gpu.samples == hone::kMinGpuSamples);
  CHECK(gpu.remeasures == options.remeasures);
}

TEST_CASE("timing plan: on a CPU clock a launch of 100 ms or more is one sample, which is all its time needs") {
  hone::TimingOptions options;
  options.repeats = 7;
  CHECK(hone::plan_timing(hone::kCpuLongLaunchMs * 0.9, 1024, emu(), options).samples == hone::kCpuSamples);
  CHECK(hone::plan_timing(hone::kCpuLongLaunchMs, 1024, emu(), options).samples == 1);
  CHECK(hone::plan_timing(20000, 1024, emu(), options).samples == 1);
  CHECK(hone::plan_timing(20000, 1024, h200(), options).samples == hone::kMinGpuSamples);  // a GPU's long launch is not
}

TEST_CASE("interleaved timing: the speedup is the ratio of the medians taken in turns") {
  // Baseline and winner sampled alternately; the machine slowed down half-way for both.
  const auto baseline = hone::summarize_samples({0.050, 0.051, 0.050, 0.060, 0.061, 0.060}, "gpu");
  const auto winner = hone::summarize_samples({0.020, 0.020, 0.021, 0.024, 0.024, 0.025}, "gpu");
  CHECK(hone::speedup(baseline, winner) == doctest::Approx(0.0555 / 0.0225));
  CHECK(hone::speedup(baseline, hone::TimingStats{}) == 0);
  CHECK(hone::speedup(hone::TimingStats{}, winner) == 0);
}

TEST_CASE("physical floor: a time below the bytes over the copy bandwidth (with headroom) or the flops over the peak is impossible") {
  const hone::DeviceInfo d = h200();
  // gemv 1x4096x4096 bf16: 2*(4096*4096 + 4096 + 4096) bytes, at most 1.25 x 4300 GB/s: 6.25 us.
  const double bytes = 2.0 * (4096.0 * 4096 + 4096 + 4096);
  const double floor_ms = bytes / (4300e9 * hone::kCopyBandwidthHeadroom) * 1e3;
  CHECK(floor_ms == doctest::Approx(0.006250).epsilon(0.01));
  const std::string cheat = hone::impossible_speed(0.5 * floor_ms, bytes, 2 * 4096.0 * 4096, d);
  CHECK(cheat.find("impossible speed") == 0);
  CHECK(cheat.find("4300 GB/s") != std::string::npos);
  // Faster than cuMemcpy (95% of the peak where the copy reaches 90%) is possible.
  CHECK(hone::impossible_speed(bytes / (4300e9 * 1.05) * 1e3, bytes, 2 * 4096.0 * 4096, d).empty());
  // Flops: 1e12 flops in 0.1 ms is 1e7 GFLOP/s, above the bound.
  CHECK(hone::impossible_speed(0.1, 0, 1e12, d).find("GFLOP/s") != std::string::npos);
  // A copy rate measured low (a cold GPU, a slow copy engine) does not fail an honest kernel: the
  // memory's peak, with 10% for L2 hits, bounds it too.
  hone::DeviceInfo cold = d;
  cold.copy_bandwidth_gbs = 2500;
  CHECK(hone::impossible_speed(bytes / 4500e9 * 1e3, bytes, 0, cold).empty());
  const std::string above_peak = hone::impossible_speed(bytes / 6000e9 * 1e3, bytes, 0, cold);
  CHECK(above_peak.find("impossible speed") == 0);
  CHECK_MESSAGE(above_peak.find("1.1x its memory's peak of 4800 GB/s") != std::string::npos, above_peak);
  // Unknown limits (emu): never impossible.
  CHECK(hone::impossible_speed(1e-9, bytes, 1e12, emu()).empty());
}

namespace {

// What the timing functions ask of a device, on a CPU clock whose every launch lasts `launch_ms`:
// no memory and no kernels, only launches counted. It refuses what a timing must not need.
class CountingCpuClock : public hone::Device {
 public:
  explicit CountingCpuClock(double launch_ms) : launch_ms_(launch_ms) { info_ = emu(); }
  const hone::DeviceInfo& info() const override { return info_; }
  void* alloc(std::size_t) override { throw std::logic_error("a timing allocates nothing"); }
  void release(void*) override {}
  void upload(void*, const void*, std::size_t) override { throw std::logic_error("a timing uploads nothing"); }
  void download(void*, const void*, std::size_t) override { throw std::logic_error("a timing downloads nothing"); }
  std::unique_ptr<hone::LoadedKernel> load(const hone::KernelImage&) override { return std::make_unique<hone::LoadedKernel>(); }
  void launch(hone::LoadedKernel&, const hone::LaunchDims&, void**) override { ++launches; }
  double timed_launch(hone::LoadedKernel&, const hone::LaunchDims&, void**, const hone::BufferCopies&) override {
    ++launches;
    return launch_ms_;
  }
  int launches = 0;

 private:
  double launch_ms_;
  hone::DeviceInfo info_;
};

hone::TimedKernel warmed_up(CountingCpuClock& device, hone::LoadedKernel& kernel, const hone::TimingOptions& options) {
  hone::TimedKernel k{&kernel, {}, {hone::TimedSample{{nullptr}, {}}}, {}, {}};
  k.warm = hone::warm_up(device, kernel, k.dims, k.samples, options);
  k.plan = hone::plan_timing(k.warm.median_ms, 1024, device.info(), options);
  return k;
}

}  // namespace

TEST_CASE("timing on a CPU clock: a launch of 100 ms or more is timed by its warm-up alone, also in turns, and shorter ones get samples") {
  const hone::TimingOptions options;
  hone::LoadedKernel kernel;

  CountingCpuClock slow(hone::kCpuLongLaunchMs * 1.5), other(hone::kCpuLongLaunchMs * 3);
  const hone::TimedKernel a = warmed_up(slow, kernel, options);
  CHECK(a.plan.warm_up_is_sample);
  CHECK(slow.launches == 1);
  const hone::TimingStats alone = hone::measure(slow, a, options);
  CHECK(slow.launches == 1);  // the warm-up was the sample
  CHECK(alone.runs == 1);
  CHECK(alone.timer == "cpu");
  CHECK(alone.median_ms == doctest::Approx(hone::kCpuLongLaunchMs * 1.5));
  const hone::TimedKernel b = warmed_up(other, kernel, options);
  const auto [ta, tb] = hone::time_interleaved(slow, a, b, options);
  CHECK(slow.launches + other.launches == 2);
  CHECK(hone::speedup(tb, ta) == doctest::Approx(2.0));

  // Below a second: the warm-up, then kCpuSamples samples of their own; in turns, a warm-up pair
  // and the samples.
  CountingCpuClock quick(hone::kCpuLongLaunchMs / 4);
  const hone::TimedKernel q = warmed_up(quick, kernel, options);
  CHECK_FALSE(q.plan.warm_up_is_sample);
  const int warm_launches = quick.launches;
  CHECK(hone::measure(quick, q, options).runs == hone::kCpuSamples);
  CHECK(quick.launches == warm_launches + hone::kCpuSamples);
  const int before_turns = quick.launches;
  hone::time_interleaved(quick, q, q, options);
  CHECK(quick.launches - before_turns == 2 * (1 + hone::kCpuSamples));

  // A GPU's long launch is not timed by its warm-up.
  hone::TimingOptions gpu_options;
  CHECK_FALSE(hone::plan_timing(hone::kCpuLongLaunchMs * 2, 1024, h200(), gpu_options).warm_up_is_sample);
}
