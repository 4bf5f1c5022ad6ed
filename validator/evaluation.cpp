#include "validator/evaluation.hpp"

#include <fmt/format.h>

#include "core/op_spec.hpp"
#include "validator/compare.hpp"
#include "validator/kernel_args.hpp"
#include "validator/timing.hpp"

namespace hone {

namespace {

nlohmann::json kernel_to_json(const KernelUnderTest& k) {
  return {{"entry", k.image.entry},
          {"emu_object", k.image.emu_object.string()},
          {"emu_invoke", k.image.emu_invoke},
          {"launch", k.launch.to_json()}};
}

KernelUnderTest kernel_from_json(const nlohmann::json& j) {
  KernelUnderTest k;
  k.image.entry = j.at("entry").get<std::string>();
  k.image.emu_object = j.at("emu_object").get<std::string>();
  k.image.emu_invoke = j.at("emu_invoke").get<std::string>();
  k.launch = parse_launch_rule(j.at("launch"), "evaluation request", "launch");
  return k;
}

// The output buffers (Out and InOut) of one launch on fresh buffers.
std::vector<std::pair<std::size_t, HostTensor>> run_once(Device& device, LoadedKernel& kernel, const LaunchDims& dims,
                                                         const OpSpec& op, const EvaluationRequest& req,
                                                         const std::vector<HostTensor>& host) {
  LaunchArgs args(device, op, req.shape, req.scalars, host);
  device.launch(kernel, dims, args.argv());
  std::vector<std::pair<std::size_t, HostTensor>> out;
  for (std::size_t i = 0; i < op.args.size(); ++i)
    if (op.args[i].pointer && op.args[i].role != ArgRole::In) out.emplace_back(i, args.download(i));
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const EvaluationRequest& r) {
  j = {{"spec_dir", r.spec_dir.string()},
       {"shape", r.shape},
       {"scalars", r.scalars},
       {"reference", kernel_to_json(r.reference)},
       {"candidate", kernel_to_json(r.candidate)},
       {"check", r.check},
       {"seeds", r.seeds},
       {"time", r.time},
       {"timing",
        {{"warmup_runs", r.timing.warmup_runs},
         {"warmup_ms", r.timing.warmup_ms},
         {"repeats", r.timing.repeats},
         {"max_total_ms", r.timing.max_total_ms}}}};
}

void from_json(const nlohmann::json& j, EvaluationRequest& r) {
  r.spec_dir = j.at("spec_dir").get<std::string>();
  r.shape = j.at("shape").get<Bindings>();
  r.scalars = j.at("scalars").get<std::map<std::string, double>>();
  r.reference = kernel_from_json(j.at("reference"));
  r.candidate = kernel_from_json(j.at("candidate"));
  r.check = j.at("check").get<bool>();
  r.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  r.time = j.at("time").get<bool>();
  const auto& t = j.at("timing");
  r.timing = {t.at("warmup_runs").get<int>(), t.at("warmup_ms").get<double>(), t.at("repeats").get<int>(),
              t.at("max_total_ms").get<double>()};
}

Verdict evaluate(Device& device, const EvaluationRequest& req, const StageListener& on_stage) {
  auto stage = [&](const std::string& s) {
    if (on_stage) on_stage(s);
    return s;
  };
  std::string current = stage("load");
  OpSpec op = load_op_spec(req.spec_dir);
  op.check_shape(req.shape);

  Verdict v;
  try {
    auto candidate = device.load(req.candidate.image);
    const LaunchDims dims = req.candidate.launch.eval(req.shape);

    if (req.check) {
      current = stage("reference");
      auto reference = device.load(req.reference.image);
      const LaunchDims ref_dims = req.reference.launch.eval(req.shape);
      double worst_ratio = -1;
      for (std::uint64_t seed : req.seeds) {
        const auto host = generate_inputs(op, req.shape, seed);
        const auto expected = run_once(device, *reference, ref_dims, op, req, host);
        const auto got = run_once(device, *candidate, dims, op, req, host);
        for (std::size_t k = 0; k < expected.size(); ++k) {
          const ArgSpec& arg = op.args[expected[k].first];
          const Comparison c = compare_buffers(got[k].second, expected[k].second, op.tolerance.at(arg.dtype));
          v.max_abs_err = std::max(v.max_abs_err, c.max_abs_err);
          if (c.worst_ratio > worst_ratio) {
            worst_ratio = c.worst_ratio;
            std::vector<std::int64_t> extents;
            for (const auto& d : arg.dims) extents.push_back(d.eval(req.shape));
            v.worst = {arg.name, format_index(c.worst_index, extents), c.got, c.expected};
          }
          if (c.mismatches > 0) {
            const Tolerance& tol = op.tolerance.at(arg.dtype);
            v.stage = current;
            v.reason = fmt::format("{} of {} elements of '{}' differ from the reference (seed {}); worst {}{}: got {:.6g}, "
                                   "expected {:.6g}, tolerance {:.3g} + {:.3g}*|expected|",
                                   c.mismatches, expected[k].second.count, arg.name, seed, arg.name, v.worst.index,
                                   c.got, c.expected, tol.atol, tol.rtol);
            v.detail["seed"] = seed;
            return v;
          }
        }
      }
      v.detail["seeds"] = req.seeds;
    }

    if (req.time) {
      current = stage("timing");
      const auto host = generate_inputs(op, req.shape, req.seeds.empty() ? 1 : req.seeds.front());
      LaunchArgs args(device, op, req.shape, req.scalars, host);
      v.timing = time_kernel(device, *candidate, dims, args.argv(), req.timing);
    }
  } catch (const std::exception& e) {
    v.pass = false;
    v.stage = current;
    v.reason = std::string("kernel fault: ") + e.what();
    return v;
  }
  v.pass = true;
  v.stage = current;
  return v;
}

}  // namespace hone
