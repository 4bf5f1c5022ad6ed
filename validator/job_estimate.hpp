#pragma once
// How long a job (`hone tune`, `hone gate`) is expected to take on the device at hand, told
// before it starts: each task's bytes and flops at its shape (the op spec's formulas), a rate for
// the device, and how many launches a candidate costs. A roofline per launch (the slower of
// moving the bytes and doing the flops), times launches, plus one NVRTC compile, summed over
// candidates and tasks. Device none launches nothing: its estimate is the compiles alone. Where
// no rate is known at all, the estimate says so instead of giving a number.
#include <cstddef>
#include <string>
#include <vector>

namespace hone {

/// What one launch costs on a device; 0 where unknown.
struct DeviceRate {
  double bytes_per_s = 0;
  double flops_per_s = 0;
  std::string source;  // where the figures come from: "measured on emu by a calibration launch"
  double compile_s = 0;  // what NVRTC takes for one kernel here, measured; 0 where unknown
  // bytes a second the host draws as inputs, copies and compares, measured; 0 where unknown. The
  // validator does that to every buffer several times a kernel, whatever the device: with an MoE
  // layer's 2 GB of expert weights it outweighs the launches.
  double host_bytes_per_s = 0;

  bool launches_known() const { return bytes_per_s > 0 || flops_per_s > 0; }
  bool known() const { return launches_known() || compile_s > 0; }
};

/// One task (or gate entry) of a job: what a launch at its shape moves and computes, and how many
/// kernels are launched for it: candidates, each evaluated in full, and baselines, only timed
/// (the reference's launches beside each check are a candidate's evaluation's).
struct TaskWork {
  double bytes = 0;
  double flops = 0;
  std::size_t candidates = 1;
  double buffer_bytes = 0;  // every argument buffer at the task's shape: what the host draws and copies
  // Launches and draws of the buffers one kernel's evaluation makes, at the task's shape
  // (validator/evaluation_work.hpp); 0: the estimate's defaults.
  double launches = 0;
  double draws = 0;
  std::size_t baselines = 0;     // kernels compiled and timed, not checked: a job's reference
  double baseline_launches = 0;  // their launches at the task's shape (alone, and in turns with the winner)
};

/// Launches per candidate at the task's shape for a task that does not count its own
/// (validator/evaluation_work.hpp counts them from the checks), the reference's launches beside it:
/// the reference check (two seeds and the op's input cases, candidate and reference each), the
/// hidden tests' shapes and values, the consistency runs, and on a CPU clock a warm-up and three
/// timed samples. The hidden tests' smaller shapes are counted at the task's shape: an upper
/// bound rather than a guess below.
constexpr int kLaunchesPerCandidate = 24;

/// Times the host draws, copies and compares every buffer of a task per candidate, for a task that
/// does not count its own, the reference's runs beside it counted too: the reference check's seeds
/// and input cases, the hidden cases, the timing inputs and the check after timing each draw the
/// buffers afresh (so that a kernel cannot learn which inputs it will see), upload them and
/// compare what comes back.
/// Set from `hone check` on emu at Qwen3-Next's MoE shape, whose buffers dwarf its launches
/// (README, "Expected time").
constexpr int kHostPassesPerCandidate = 6;

struct JobEstimate {
  bool known = false;        // false: the rate is unknown, `seconds` means nothing
  bool launches = false;     // whether the launches are in `seconds` (not on device none)
  double seconds = 0;
  std::size_t tasks = 0;
  std::size_t candidates = 0;  // over all tasks
  // The fewest and most launches and draws a kernel of one task makes: the tasks' own counts,
  // else the defaults estimate_job was given.
  double launches_lo = 0, launches_hi = 0;
  double draws_lo = 0, draws_hi = 0;
};

/// Seconds one launch of `task` takes at `rate` (the slower of its bytes and its flops); 0 when
/// the rate is unknown.
double launch_seconds(const TaskWork& task, const DeviceRate& rate);

/// Seconds the host spends on one candidate's buffers of `task` (its draws, else
/// kHostPassesPerCandidate passes); 0 when the host rate is unknown.
double host_seconds(const TaskWork& task, const DeviceRate& rate);

/// `launches_per_candidate`: for a task that does not count its own.
JobEstimate estimate_job(const std::vector<TaskWork>& tasks, const DeviceRate& rate,
                         int launches_per_candidate = kLaunchesPerCandidate);

/// The time a job has left at the pace it keeps: what its finished tasks took against what the
/// estimate gave them, applied to what the estimate gives the rest. An estimate from rates misses
/// what a rate cannot see (on emu a kernel full of barriers and shuffles runs many times slower
/// than the calibration kernels); the pace corrects it as the job goes.
struct JobPace {
  double expected_done = 0;  // the estimate's seconds for the tasks finished
  double expected_left = 0;  // and for the tasks still to run
  double elapsed = 0;        // seconds the finished tasks took

  /// "2 min 10 s so far, 2.4x the estimate: about 12 min left at this pace"; empty until a task
  /// the estimate gave time to has finished, or when nothing is left.
  std::string line() const;
};

/// "3 min 20 s", "45 s", "under 1 s".
std::string duration_words(double seconds);

/// The two lines a job prints before it starts: the expected time (or why there is none) and
/// what the estimate assumes. `per_task` names what a task's candidates are ("2 candidates and
/// the reference"); `left_out`, when given, says what the estimate does not count.
std::vector<std::string> estimate_lines(const JobEstimate& estimate, const DeviceRate& rate, const std::string& device,
                                        const std::string& per_task, const std::string& left_out = "");

}  // namespace hone
