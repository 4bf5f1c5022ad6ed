#pragma once
// How one kernel is timed on a device, decided from a warm-up launch's duration: one launch per
// sample, or a batch replayed as one (a CUDA graph) for kernels of a few microseconds, whose
// single launches are too short for the device's event clock; and among how many argument sets
// a batch rotates, so that it reads its inputs from memory and not from what the previous
// launch left in L2.
#include "runtime/device.hpp"
#include "validator/evaluation.hpp"

namespace hone {

struct TimingPlan {
  int launches_per_sample = 1;  // >1: the sample is the mean of a replayed batch
  int input_sets = 1;           // argument sets the launches rotate among
  int samples = 5;              // samples per measurement
  int remeasures = 2;           // fresh measurements at most, while the spread is too wide
  bool warm_up_is_sample = false;  // a CPU clock's long launch: its one warm-up launch is its one sample
};

/// A device whose clock is the CPU's (emu): its times decide nothing about a GPU, so a kernel
/// gets this many samples at most (one when a launch is long) and no re-measuring, and the time
/// goes to checking instead.
/// The warm-up stays as on a GPU (20 ms, at most 1000 launches): it costs a long kernel one
/// launch, and the many launches of a short one are what exposes a kernel that counts its
/// launches to find the timing loop.
constexpr int kCpuSamples = 3;
/// A launch this long on a CPU clock is one sample: its time is not what is uncertain (a tick is
/// microseconds), and at a model's shapes one launch on emu is seconds to minutes. That sample is
/// the warm-up's own launch: a CPU has no clocks to raise nor a cache that a launch of this length
/// would find warm, so a second launch would measure the same thing again. Each further sample
/// also costs the harness's passes over the kernel's buffers (restored before, checked unchanged
/// after), which at an attention task's KV pool (two 126 MB buffers, on a machine that moves about
/// 1 GB/s) cost as much as a launch of a fraction of a second.
constexpr double kCpuLongLaunchMs = 100;
inline bool times_on_cpu(const DeviceInfo& device) { return device.timer == "cpu"; }

/// Launches shorter than this are timed in batches on a device that replays batches.
constexpr double kBatchBelowMs = 0.02;
/// A batch lasts about this long, long enough for the event clock (about 0.5 us resolution).
constexpr double kBatchTargetMs = 0.2;
/// At most this many launches in a batch and argument sets in a rotation.
constexpr int kMaxBatchLaunches = 1000;
constexpr int kMaxInputSets = 256;
/// One rotation of argument sets moves this many times the L2's size.
constexpr double kRotationL2Multiple = 3;
/// A device timed by its own events takes at least this many samples: they cost microseconds.
constexpr int kMinGpuSamples = 30;
/// Every launch of a batch writes buffers of its own (validator/timed_launches.hpp): a batch's
/// outputs and in-out buffers stay within this many bytes, so that fewer launches make a batch
/// of a kernel with large outputs.
constexpr double kMaxBatchOutputBytes = double(1 << 30);

/// Samples a kernel's timing takes beyond its warm-up when its launch lasts `launch_ms` (what
/// plan_timing gives with the default options): what an estimate counts.
int samples_after_warm_up(const DeviceInfo& device, double launch_ms);

/// The plan for a kernel whose warm launches take `launch_ms`, reading and writing
/// `working_set_bytes`, of which `output_bytes` are outputs and in-out buffers. Single launches
/// need no rotation: the device flushes its L2 before each.
TimingPlan plan_timing(double launch_ms, double working_set_bytes, const DeviceInfo& device, const TimingOptions& options,
                       double output_bytes = 0);

}  // namespace hone
