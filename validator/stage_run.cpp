#include "validator/stage_run.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "validator/compare.hpp"
#include "validator/error_bias.hpp"
#include "validator/untouched_check.hpp"
#include "validator/watched_device.hpp"

namespace hone {

StageRun::StageRun(Device& d, const EvaluationRequest& request, const StageListener& l) : device(d), req(request), listener(l) {}

void StageRun::stage(const std::string& name) {
  current = name;
  if (listener) listener(name);
}

void StageRun::launching(const std::string& who, const Bindings& shape) {
  if (on_launch) on_launch();
  if (!watched) return;
  std::string at;  // in the op's order of symbols, as its signature has them: "tokens=7,hidden=256"
  for (const auto& s : op.symbols)
    if (shape.count(s)) at += (at.empty() ? "" : ",") + s + "=" + std::to_string(shape.at(s));
  watched->set_activity(fmt::format("{} at {} in the {} stage", who, at, current));
}

void StageRun::fail(const std::string& reason, nlohmann::json detail) {
  Verdict v = Verdict::failed(current, reason);
  v.detail = std::move(detail);
  v.worst = worst;
  v.max_abs_err = max_abs_err;
  if (!worst_bias.is_null()) v.detail["error_bias"] = worst_bias;
  throw StageFailure{v};
}

std::string shape_text(const Bindings& shape) {
  std::string s;
  for (const auto& [k, v] : shape) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

LaunchDims StageRun::dims_at(const KernelUnderTest& k, const Bindings& shape) {
  try {
    return k.launch.eval(shape);
  } catch (const std::exception& e) {
    fail(fmt::format("the launch rule does not hold at {}: {}", shape_text(shape), e.what()));
  }
}

namespace {

std::map<std::string, double> scalars_of(const EvaluationRequest& req, const LaunchSetup& setup) {
  std::map<std::string, double> scalars = req.scalars;
  for (const auto& [name, value] : setup.scalars) scalars[name] = value;
  return scalars;
}

}  // namespace

std::unique_ptr<LaunchArgs> StageRun::upload_inputs(const Bindings& shape, const std::vector<HostTensor>& host,
                                                    const LaunchSetup& setup) {
  return std::make_unique<LaunchArgs>(device, op, shape, scalars_of(req, setup), host, true);
}

RunResult StageRun::run(LoadedKernel& kernel, const KernelUnderTest& k, const Bindings& shape,
                        const std::vector<HostTensor>& host, const LaunchSetup& setup) {
  const LaunchDims dims = dims_at(k, shape);
  // In place, the written argument is an input's buffer: that one launch gets inputs of its own.
  const bool shared = setup.inputs && !setup.in_place;
  std::optional<LaunchArgs> args;
  if (shared) args.emplace(*setup.inputs, host);
  else args.emplace(device, op, shape, scalars_of(req, setup), host);
  if (setup.in_place) args->alias(op.arg_index(setup.in_place->first), op.arg_index(setup.in_place->second));
  const bool is_candidate = &kernel == candidate.get();
  launching(is_candidate ? "the candidate" : "the reference", shape);
  device.launch(kernel, dims, args->argv());
  RunResult r;
  for (std::size_t i = 0; i < op.args.size(); ++i) {
    const ArgSpec& a = op.args[i];
    if (!a.pointer || (a.role != ArgRole::Out && a.role != ArgRole::InOut)) continue;
    r.outputs.emplace_back(i, args->download(i));
    r.before.push_back(a.role == ArgRole::InOut ? host[i] : HostTensor{});
    r.checked.push_back(a.role == ArgRole::InOut && a.addressed ? addressed_ranges(op, a, shape, host) : CheckedElements{});
  }
  r.integrity = args->integrity_problems();
  // The shared inputs are checked after the candidate's launches: the reference leaves them alone.
  if (shared && is_candidate)
    for (auto& p : setup.inputs->integrity_problems()) r.integrity.push_back(std::move(p));
  for (auto& p : unaddressed_changes(op, shape, host, r.outputs)) r.integrity.push_back(std::move(p));
  for (auto& p : scratch_zeroed_problems(op, shape, host, *args)) r.integrity.push_back(std::move(p));
  for (auto& p : r.integrity) {
    if (setup.in_place) p += fmt::format(" (when '{}' is '{}', in place)", setup.in_place->first, setup.in_place->second);
    if (!setup.call.empty()) p += " (" + setup.call + ")";
  }
  return r;
}

RunResult StageRun::run_candidate(const Bindings& shape, const std::vector<HostTensor>& host, const LaunchSetup& setup) {
  RunResult r = run(*candidate, req.candidate, shape, host, setup);
  check_integrity(r);
  return r;
}

void StageRun::check_integrity(const RunResult& r) {
  // Whatever stage notices it, breaking inputs or guard zones is what the consistency checks
  // are there to catch.
  if (!r.integrity.empty()) {
    const std::string during = current;
    current = "consistency";
    std::string all;
    for (const auto& p : r.integrity) all += (all.empty() ? "" : "; ") + p;
    fail("the kernel " + all + " (during the " + during + " stage)");
  }
}

RunResult StageRun::run_reference(const Bindings& shape, const std::vector<HostTensor>& host, const LaunchSetup& setup) {
  RunResult r = run(*reference, req.reference, shape, host, setup);
  // A second launch with every float in-out buffer holding signalling NaN tells the elements the
  // reference leaves alone from those it computes on and that round back to their old bits.
  // The inputs are copied only for an op with an in-out buffer: an expert weight tensor is gigabytes.
  std::vector<HostTensor> probe_host;
  std::vector<bool> filled(op.args.size());
  for (std::size_t i = 0; i < op.args.size(); ++i)
    if (op.args[i].pointer && op.args[i].role == ArgRole::InOut) {
      if (probe_host.empty()) probe_host = host;
      filled[i] = fill_signalling_nan(probe_host[i]);
    }
  const bool probed = std::find(filled.begin(), filled.end(), true) != filled.end();
  const RunResult probe = probed ? run(*reference, req.reference, shape, probe_host, setup) : RunResult{};
  for (std::size_t k = 0; k < r.outputs.size(); ++k) {
    const std::size_t i = r.outputs[k].first;
    if (op.args[i].role != ArgRole::InOut) {
      r.kept.emplace_back();
    } else if (filled[i]) {
      r.kept.push_back(kept_elements(host[i], r.outputs[k].second, probe_host[i], probe.outputs[k].second, r.checked[k]));
    } else {
      r.kept.push_back(kept_elements(host[i], r.outputs[k].second, {}, {}, r.checked[k]));
    }
  }
  return r;
}

std::string StageRun::compare(const RunResult& got, const RunResult& expected, const Bindings& shape,
                              const InputCase* input_case, const std::string& what) {
  for (std::size_t k = 0; k < expected.outputs.size(); ++k) {
    const ArgSpec& arg = op.args[expected.outputs[k].first];
    const Tolerance tol = op.tolerance_for(arg.dtype, input_case);
    std::vector<std::int64_t> extents;
    for (const auto& d : arg.dims) extents.push_back(d.eval(shape));
    static const CheckedElements kEvery;
    const CheckedElements& only = k < expected.checked.size() ? expected.checked[k] : kEvery;
    const std::size_t row_length = extents.empty() || extents.front() <= 0 ? 0 : expected.outputs[k].second.count / extents.front();
    const Comparison c = compare_buffers(got.outputs[k].second, expected.outputs[k].second, tol, only, row_length);
    max_abs_err = std::max(max_abs_err, c.max_abs_err);
    if (c.mismatches > 0 || worst.buffer.empty()) worst = {arg.name, format_index(c.worst_index, extents), c.got, c.expected};
    if (c.mismatches > 0)
      return fmt::format("{} of {} elements of '{}' differ from the reference ({}); worst {}{}: got {:.6g}, expected {:.6g}, "
                         "tolerance {:.3g} + {:.3g}*|expected|{}",
                         c.mismatches, expected.outputs[k].second.count, arg.name, what, arg.name, worst.index, c.got,
                         c.expected, tol.atol, tol.rtol,
                         tol.row_rtol > 0 ? fmt::format(" + {:.3g}*rms(row) (rms {:.4g})", tol.row_rtol, c.row_rms) : "");
    if (arg.role == ArgRole::InOut && k < got.before.size() && k < expected.kept.size()) {
      const HostTensor &g = got.outputs[k].second, &e = expected.outputs[k].second;
      const std::int64_t changed = first_change_of_kept(got.before[k], g, expected.kept[k], only);
      if (changed >= 0) {
        const auto i = static_cast<std::size_t>(changed);
        worst = {arg.name, format_index(changed, extents), g.at(i), e.at(i)};
        return fmt::format("'{}' at {} (element {}) must be left unchanged ({}): the reference leaves it as it went in, "
                           "{:.9g}, the kernel changed it to {:.9g}; an element the reference leaves as it was is compared bit for bit",
                           arg.name, worst.index, changed, what, got.before[k].at(i), g.at(i));
      }
    }
    const ErrorBias b = error_bias(got.outputs[k].second, expected.outputs[k].second, only);
    if (worst_bias.is_null() || b.ratio() > worst_bias.value("ratio", 0.0))
      worst_bias = {{"buffer", arg.name}, {"relative", b.relative}, {"in_magnitude", b.in_magnitude}, {"bound", b.bound},
                    {"ratio", b.ratio()},
                    {"unit", b.unit}, {"effective_elements", b.effective_elements}};
    if (b.biased())
      return fmt::format("the errors of '{}' lean to one side ({}): its mean signed error is {:+.3g}% of its mean magnitude, "
                         "{:+.2f} rounding units of {}, above the {:.2f} units that unbiased rounding stays within over its "
                         "{:.0f} effective elements; every element is inside the tolerance, but together they are "
                         "systematically {}",
                         arg.name, what, 100 * b.relative, b.relative / b.unit, dtype_name(arg.dtype), b.bound / b.unit,
                         b.effective_elements,
                         b.in_magnitude ? (b.relative > 0 ? "too large in magnitude" : "too small in magnitude")
                                        : (b.relative > 0 ? "shifted up" : "shifted down"));
  }
  return "";
}

}  // namespace hone
