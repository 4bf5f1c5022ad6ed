#pragma once
// A task's baselines: what an engine would run without hone. The op's reference kernel always,
// and a vendor library where one is registered for the op on the device (cuBLAS for the linear
// layers, on a GPU). The baselines compete for the win: a task's winner is timed in turns with
// each of them in one session and must beat the fastest; where no candidate does, that baseline
// is the task's entry, exported with its origin (serving/FORMAT.md).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate.hpp"
#include "core/op_spec.hpp"
#include "runtime/device.hpp"

namespace hone {

struct Baseline {
  /// "reference", or "vendor:<library>" ("vendor:cublas"): the candidate's origin, and the
  /// entry's when it is the entry.
  std::string origin;
  /// What is built, stored and timed like any candidate. A vendor library's is a kernel image
  /// its device knows how to run (its source may be empty).
  Candidate candidate;
};

/// A vendor library's baseline for `op` on `device`, or nothing where it serves no such task. It
/// throws (std::exception) when it would serve the task but cannot: its library does not load.
using VendorBaseline = std::function<std::optional<Baseline>(const OpSpec& op, const DeviceInfo& device)>;

/// Makes a vendor library a baseline of the ops it serves (from then on, in this process). cuBLAS
/// is one from the start: gemv on a cuda device, as cublasGemmEx at the task's M, N and K.
void register_vendor_baseline(VendorBaseline make);

/// The baselines of a task of `op` on `device`: the reference first, then the vendor libraries'.
/// A library that would serve the task but cannot is left out, and why is added to `left_out`
/// when given ("vendor baseline left out: ...").
std::vector<Baseline> task_baselines(const OpSpec& op, const DeviceInfo& device,
                                     std::vector<std::string>* left_out = nullptr);

/// cuBLAS's baseline: for gemv on a cuda device, the image the cuda device runs as cublasGemmEx
/// (runtime/cublas_gemv.hpp); throws CublasUnavailable when the library does not load.
std::optional<Baseline> cublas_gemv_baseline(const OpSpec& op, const DeviceInfo& device);

/// Whether a candidate of this origin is a baseline: "reference" or "vendor:...".
bool is_baseline_origin(const std::string& origin);

}  // namespace hone
