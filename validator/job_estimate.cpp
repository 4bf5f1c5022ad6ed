#include "validator/job_estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hone {

double launch_seconds(const TaskWork& task, const DeviceRate& rate) {
  const double moving = rate.bytes_per_s > 0 ? task.bytes / rate.bytes_per_s : 0;
  const double computing = rate.flops_per_s > 0 ? task.flops / rate.flops_per_s : 0;
  return std::max(moving, computing);
}

double host_seconds(const TaskWork& task, const DeviceRate& rate) {
  const double draws = task.draws > 0 ? task.draws : kHostPassesPerCandidate;
  return rate.host_bytes_per_s > 0 ? draws * task.buffer_bytes / rate.host_bytes_per_s : 0;
}

namespace {

void widen(double& lo, double& hi, double v, bool first) {
  lo = first ? v : std::min(lo, v);
  hi = first ? v : std::max(hi, v);
}

// "24", or "19 to 46" where the tasks differ.
std::string range_words(double lo, double hi) {
  const long long a = std::llround(lo), b = std::llround(hi);
  return a == b ? fmt::format("{}", a) : fmt::format("{} to {}", a, b);
}

}  // namespace

JobEstimate estimate_job(const std::vector<TaskWork>& tasks, const DeviceRate& rate, int launches_per_candidate) {
  JobEstimate e;
  e.known = rate.known();
  e.launches = rate.launches_known();
  e.tasks = tasks.size();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const TaskWork& t = tasks[i];
    const double per_kernel = t.launches > 0 ? t.launches : launches_per_candidate;
    widen(e.launches_lo, e.launches_hi, per_kernel, i == 0);
    widen(e.draws_lo, e.draws_hi, t.draws > 0 ? t.draws : kHostPassesPerCandidate, i == 0);
    e.candidates += t.candidates + t.baselines;
    const double launches = e.launches ? launch_seconds(t, rate) * per_kernel + host_seconds(t, rate) : 0;
    e.seconds += (rate.compile_s + launches) * static_cast<double>(t.candidates);
    // A baseline's timings draw the timing inputs: once alone, once in turns.
    const double timed = e.launches ? launch_seconds(t, rate) * t.baseline_launches +
                                          (rate.host_bytes_per_s > 0 ? 2 * t.buffer_bytes / rate.host_bytes_per_s : 0) *
                                              static_cast<double>(t.baselines)
                                    : 0;
    e.seconds += rate.compile_s * static_cast<double>(t.baselines) + timed;
  }
  if (tasks.empty()) {
    e.launches_lo = e.launches_hi = launches_per_candidate;
    e.draws_lo = e.draws_hi = kHostPassesPerCandidate;
  }
  if (!e.known) e.seconds = 0;
  return e;
}

std::string JobPace::line() const {
  if (expected_done <= 0 || expected_left <= 0 || elapsed <= 0) return "";
  const double ratio = elapsed / expected_done;
  return fmt::format("{} so far, {:.2g}x the estimate: about {} left at this pace", duration_words(elapsed), ratio,
                     duration_words(ratio * expected_left));
}

std::string duration_words(double seconds) {
  if (seconds < 1) return "under 1 s";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

std::vector<std::string> estimate_lines(const JobEstimate& e, const DeviceRate& rate, const std::string& device,
                                        const std::string& per_task, const std::string& left_out) {
  std::vector<std::string> out;
  if (!e.known) {
    out.push_back(fmt::format("expected time on {}: not estimated, no rate is known for this device ({})", device,
                              rate.source.empty() ? "nothing runs on it" : rate.source));
    return out;
  }
  const std::string how_long = e.seconds < 1 ? duration_words(e.seconds) : "about " + duration_words(e.seconds);
  const std::string compile = rate.compile_s > 0 ? fmt::format("NVRTC {:.2g} s a kernel", rate.compile_s) : "compile time unknown";
  if (e.launches)
    out.push_back(fmt::format("expected time on {}: {} for {} tasks, {} kernels ({}: {:.3g} GB/s, {:.3g} GFLOP/s; {})", device,
                              how_long, e.tasks, e.candidates, rate.source, rate.bytes_per_s / 1e9, rate.flops_per_s / 1e9, compile));
  else
    out.push_back(fmt::format("expected time on {}: {} for {} tasks, {} kernels ({}; {})", device, how_long, e.tasks, e.candidates,
                              rate.source, compile));
  std::string launches =
      e.launches ? fmt::format("{} launches per kernel at the task's shape (checks, reference and timing), each as slow as the "
                               "spec's bytes or flops at that rate",
                               range_words(e.launches_lo, e.launches_hi))
                 : std::string("no launches");
  if (e.launches && rate.host_bytes_per_s > 0)
    launches += fmt::format(", and the host drawing, copying and comparing every buffer {} times a kernel at {:.3g} GB/s "
                            "(measured here)",
                            range_words(e.draws_lo, e.draws_hi), rate.host_bytes_per_s / 1e9);
  out.push_back(fmt::format("the estimate assumes {} per task, one NVRTC compile each as long as a small kernel's here and {}; "
                            "emu's host compiles and worker start-up are not counted{}",
                            per_task, launches, left_out.empty() ? "" : "; " + left_out));
  return out;
}

}  // namespace hone
