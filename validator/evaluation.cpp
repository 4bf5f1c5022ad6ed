#include "validator/evaluation.hpp"

#include <memory>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "core/op_spec.hpp"
#include "validator/compare.hpp"
#include "validator/hidden_tests.hpp"
#include "validator/kernel_args.hpp"
#include "validator/timing.hpp"
#include "validator/timing_plan.hpp"

namespace hone {

namespace {

// A CUBIN is binary and requests travel as JSON text: it goes as hex.
std::string to_hex(const std::string& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string from_hex(const std::string& hex) {
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw std::invalid_argument("evaluation request: cubin_hex holds a character that is not a hex digit");
  };
  if (hex.size() % 2) throw std::invalid_argument("evaluation request: cubin_hex has an odd number of digits");
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(value(hex[2 * i]) << 4 | value(hex[2 * i + 1]));
  return out;
}

nlohmann::json kernel_to_json(const KernelUnderTest& k) {
  nlohmann::json j = {{"entry", k.image.entry},
                      {"emu_object", k.image.emu_object.string()},
                      {"emu_invoke", k.image.emu_invoke},
                      {"launch", k.launch.to_json()}};
  if (!k.image.cubin.empty()) j["cubin_hex"] = to_hex(k.image.cubin);
  if (!k.image.ptx.empty()) j["ptx"] = k.image.ptx;
  return j;
}

KernelUnderTest kernel_from_json(const nlohmann::json& j) {
  KernelUnderTest k;
  k.image.entry = j.at("entry").get<std::string>();
  k.image.emu_object = j.at("emu_object").get<std::string>();
  k.image.emu_invoke = j.at("emu_invoke").get<std::string>();
  k.image.cubin = from_hex(j.value("cubin_hex", ""));
  k.image.ptx = j.value("ptx", "");
  k.launch = parse_launch_rule(j.at("launch"), "evaluation request", "launch");
  return k;
}

// Argument sets a timing rotates among: the one given, and more copies of the same inputs in
// fresh buffers up to the plan's count.
struct ArgRotation {
  std::vector<std::unique_ptr<LaunchArgs>> extra;
  std::vector<void**> argv;
};

// Output buffers (Out and InOut) of one launch, and what the launch broke.
struct RunResult {
  std::vector<std::pair<std::size_t, HostTensor>> outputs;
  std::vector<std::string> integrity;
};

// A stage failed: the verdict to return.
struct StageFailure {
  Verdict verdict;
};

class Evaluation {
 public:
  Evaluation(Device& device, const EvaluationRequest& req, const StageListener& listener)
      : device_(device), req_(req), listener_(listener) {}

  Verdict run() {
    stage("load");
    op_ = load_op_spec(req_.spec_dir);
    op_.check_shape(req_.shape);
    Verdict v;
    try {
      candidate_ = device_.load(req_.candidate.image);
      if (req_.check) {
        reference_ = device_.load(req_.reference.image);
        reference_stage(v);
        hidden_stage();
        consistency_stage();
      }
      if (req_.time_against_reference) {
        reference_ = device_.load(req_.reference.image);
        timing_against_reference_stage(v);
      } else if (req_.time) {
        timing_stage(v);
      }
      if (req_.check && req_.time) after_timing_stage();
    } catch (const StageFailure& f) {
      Verdict failed = f.verdict;
      failed.detail.update(v.detail);
      return failed;
    } catch (const std::exception& e) {
      return Verdict::failed(current_, std::string("kernel fault: ") + e.what());
    }
    v.pass = true;
    // A passing verdict names the stage that produced its figures: the timing, when there was one.
    v.stage = req_.time || req_.time_against_reference ? "timing" : current_;
    return v;
  }

 private:
  void stage(const std::string& s) {
    current_ = s;
    if (listener_) listener_(s);
  }

  [[noreturn]] void fail(const std::string& reason, nlohmann::json detail = nlohmann::json::object()) {
    Verdict v = Verdict::failed(current_, reason);
    v.detail = std::move(detail);
    v.worst = worst_;
    v.max_abs_err = max_abs_err_;
    throw StageFailure{v};
  }

  LaunchDims dims_at(const KernelUnderTest& k, const Bindings& shape) {
    try {
      return k.launch.eval(shape);
    } catch (const std::exception& e) {
      fail(fmt::format("the launch rule does not hold at {}: {}", shape_text(shape), e.what()));
    }
  }

  static std::string shape_text(const Bindings& shape) {
    std::string s;
    for (const auto& [k, v] : shape) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s;
  }

  RunResult run(LoadedKernel& kernel, const KernelUnderTest& k, const Bindings& shape, const std::vector<HostTensor>& host) {
    const LaunchDims dims = dims_at(k, shape);
    LaunchArgs args(device_, op_, shape, req_.scalars, host);
    device_.launch(kernel, dims, args.argv());
    RunResult r;
    for (std::size_t i = 0; i < op_.args.size(); ++i)
      if (op_.args[i].pointer && op_.args[i].role != ArgRole::In) r.outputs.emplace_back(i, args.download(i));
    r.integrity = args.integrity_problems();
    return r;
  }

  RunResult run_candidate(const Bindings& shape, const std::vector<HostTensor>& host) {
    RunResult r = run(*candidate_, req_.candidate, shape, host);
    // Whatever stage notices it, breaking inputs or guard zones is what the consistency checks
    // are there to catch.
    if (!r.integrity.empty()) {
      const std::string s = current_;
      current_ = "consistency";
      std::string all;
      for (const auto& p : r.integrity) all += (all.empty() ? "" : "; ") + p;
      fail("the kernel " + all + " (during the " + s + " stage)");
    }
    return r;
  }

  // Compares outputs with the reference's; returns the first mismatch as a reason, "" if none.
  std::string compare(const RunResult& got, const RunResult& expected, const Bindings& shape, const InputCase* input_case,
                      const std::string& what) {
    for (std::size_t k = 0; k < expected.outputs.size(); ++k) {
      const ArgSpec& arg = op_.args[expected.outputs[k].first];
      const Tolerance tol = op_.tolerance_for(arg.dtype, input_case);
      const Comparison c = compare_buffers(got.outputs[k].second, expected.outputs[k].second, tol);
      max_abs_err_ = std::max(max_abs_err_, c.max_abs_err);
      std::vector<std::int64_t> extents;
      for (const auto& d : arg.dims) extents.push_back(d.eval(shape));
      if (c.mismatches > 0 || worst_.buffer.empty()) worst_ = {arg.name, format_index(c.worst_index, extents), c.got, c.expected};
      if (c.mismatches > 0)
        return fmt::format("{} of {} elements of '{}' differ from the reference ({}); worst {}{}: got {:.6g}, expected {:.6g}, "
                           "tolerance {:.3g} + {:.3g}*|expected|",
                           c.mismatches, expected.outputs[k].second.count, arg.name, what, arg.name, worst_.index, c.got,
                           c.expected, tol.atol, tol.rtol);
    }
    return "";
  }

  void reference_stage(Verdict& v) {
    stage("reference");
    std::vector<const InputCase*> cases{nullptr};
    for (const auto& c : op_.input_cases) cases.push_back(&c);
    nlohmann::json checked = nlohmann::json::array();
    for (const InputCase* c : cases) {
      // Every seed with the arguments' own distributions; the first seed for the other cases.
      const std::size_t seeds = c ? std::min<std::size_t>(1, req_.seeds.size()) : req_.seeds.size();
      for (std::size_t s = 0; s < seeds; ++s) {
        const std::uint64_t seed = req_.seeds[s];
        auto host = generate_inputs(op_, req_.shape, seed, c);
        // The candidate runs first, on fresh buffers: nothing of the reference's is left to read.
        RunResult got = run_candidate(req_.shape, host);
        RunResult expected = run(*reference_, req_.reference, req_.shape, host);
        const std::string what = fmt::format("seed {}, inputs {}", seed, c ? c->name : "default");
        const std::string mismatch = compare(got, expected, req_.shape, c, what);
        if (!mismatch.empty()) fail(mismatch, {{"seed", seed}, {"case", c ? c->name : "default"}});
        checked.push_back({{"seed", seed}, {"case", c ? c->name : "default"}});
        if (!first_host_) {
          first_host_ = std::move(host);
          first_expected_ = std::move(expected);
        }
      }
    }
    v.detail["reference_checks"] = checked;
  }

  void hidden_stage() {
    stage("hidden");
    std::uint64_t seed = req_.hidden_seed;
    if (seed == 0) {
      std::random_device rd;
      seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    Rng rng(seed);
    for (const HiddenTest& t : hidden_tests(op_, req_.shape, req_.buckets, rng)) {
      auto host = generate_inputs(op_, t.shape, t.seed, t.input_case);
      RunResult got = run_candidate(t.shape, host);
      RunResult expected = run(*reference_, req_.reference, t.shape, host);
      const std::string mismatch = compare(got, expected, t.shape, t.input_case, "hidden test " + t.label);
      if (!mismatch.empty()) fail(mismatch);
    }
  }

  void consistency_stage() {
    stage("consistency");
    if (!first_host_) return;
    // The same inputs again, now after the reference ran, and in another order of blocks, warps
    // and threads where the device can choose it: a race or state kept from the first launch shows.
    device_.set_schedule_seed(0x5eed5eedULL);
    RunResult again = run_candidate(req_.shape, *first_host_);
    device_.set_schedule_seed(0);
    const std::string mismatch =
        compare(again, *first_expected_, req_.shape, nullptr, "a second run, after the reference and in another schedule");
    if (!mismatch.empty()) fail(mismatch + "; the first run agreed: a race, or state kept between launches");
  }

  void timing_stage(Verdict& v) {
    stage("timing");
    const auto host = generate_inputs(op_, req_.shape, req_.seeds.empty() ? 1 : req_.seeds.front());
    const LaunchDims dims = dims_at(req_.candidate, req_.shape);
    LaunchArgs args(device_, op_, req_.shape, req_.scalars, host);
    const double bytes = static_cast<double>(op_.bytes.eval(req_.shape));
    const double flops = static_cast<double>(op_.flops.eval(req_.shape));
    const TimingPlan plan =
        plan_timing(warm_up(device_, *candidate_, dims, args.argv(), req_.timing), bytes, device_.info(), req_.timing);
    const ArgRotation sets = rotation(args, host, plan);
    v.timing = measure(device_, *candidate_, dims, sets.argv, plan, req_.timing);
    timed_launches_ = v.timing.runs * plan.launches_per_sample;
    const std::string impossible = impossible_speed(v.timing.median_ms, bytes, flops, device_.info());
    if (!impossible.empty()) {
      Verdict failed = Verdict::failed("timing", impossible);
      failed.timing = v.timing;
      throw StageFailure{failed};
    }
    if (device_.info().copy_bandwidth_gbs <= 0) v.detail["impossible_speed_check"] = "skipped: the device's bandwidth is unknown";
  }

  void timing_against_reference_stage(Verdict& v) {
    stage("timing");
    const auto host = generate_inputs(op_, req_.shape, req_.seeds.empty() ? 1 : req_.seeds.front());
    LaunchArgs cand_args(device_, op_, req_.shape, req_.scalars, host);
    LaunchArgs ref_args(device_, op_, req_.shape, req_.scalars, host);
    const double bytes = static_cast<double>(op_.bytes.eval(req_.shape));
    const LaunchDims cand_dims = dims_at(req_.candidate, req_.shape), ref_dims = dims_at(req_.reference, req_.shape);
    const TimingPlan cand_plan =
        plan_timing(warm_up(device_, *candidate_, cand_dims, cand_args.argv(), req_.timing), bytes, device_.info(), req_.timing);
    const TimingPlan ref_plan =
        plan_timing(warm_up(device_, *reference_, ref_dims, ref_args.argv(), req_.timing), bytes, device_.info(), req_.timing);
    const ArgRotation cand_sets = rotation(cand_args, host, cand_plan), ref_sets = rotation(ref_args, host, ref_plan);
    auto [cand, ref] = time_interleaved(device_, {candidate_.get(), cand_dims, cand_sets.argv, cand_plan},
                                        {reference_.get(), ref_dims, ref_sets.argv, ref_plan}, req_.timing);
    v.timing = cand;
    v.detail["baseline"] = {{"median_ms", ref.median_ms}, {"min_ms", ref.min_ms}, {"spread", ref.spread}, {"runs", ref.runs}};
  }

  ArgRotation rotation(LaunchArgs& first, const std::vector<HostTensor>& host, const TimingPlan& plan) {
    ArgRotation r;
    r.argv.push_back(first.argv());
    for (int i = 1; i < plan.input_sets; ++i) {
      r.extra.push_back(std::make_unique<LaunchArgs>(device_, op_, req_.shape, req_.scalars, host));
      r.argv.push_back(r.extra.back()->argv());
    }
    return r;
  }

  void after_timing_stage() {
    stage("consistency");
    // A kernel that behaves differently once it has been called many times (counting its calls,
    // detecting the timing loop) is caught here, on inputs it has not seen.
    std::random_device rd;
    const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    auto host = generate_inputs(op_, req_.shape, seed);
    RunResult got = run_candidate(req_.shape, host);
    RunResult expected = run(*reference_, req_.reference, req_.shape, host);
    const std::string mismatch =
        compare(got, expected, req_.shape, nullptr, fmt::format("after {} timed launches, seed {}", timed_launches_, seed));
    if (!mismatch.empty()) fail(mismatch);
  }

  Device& device_;
  const EvaluationRequest& req_;
  const StageListener& listener_;
  OpSpec op_;
  std::string current_ = "load";
  std::unique_ptr<LoadedKernel> candidate_, reference_;
  std::optional<std::vector<HostTensor>> first_host_;
  std::optional<RunResult> first_expected_;
  WorstElement worst_;
  double max_abs_err_ = 0;
  int timed_launches_ = 0;
};

}  // namespace

void to_json(nlohmann::json& j, const EvaluationRequest& r) {
  nlohmann::json buckets = nlohmann::json::object();
  for (const auto& [k, b] : r.buckets) buckets[k] = {b.lo, b.hi};
  j = {{"spec_dir", r.spec_dir.string()},
       {"shape", r.shape},
       {"buckets", buckets},
       {"scalars", r.scalars},
       {"reference", kernel_to_json(r.reference)},
       {"candidate", kernel_to_json(r.candidate)},
       {"check", r.check},
       {"seeds", r.seeds},
       {"hidden_seed", r.hidden_seed},
       {"time", r.time},
       {"time_against_reference", r.time_against_reference},
       {"timing",
        {{"warmup_runs", r.timing.warmup_runs},
         {"warmup_ms", r.timing.warmup_ms},
         {"repeats", r.timing.repeats},
         {"max_total_ms", r.timing.max_total_ms},
         {"max_spread", r.timing.max_spread},
         {"remeasures", r.timing.remeasures}}}};
}

void from_json(const nlohmann::json& j, EvaluationRequest& r) {
  r.spec_dir = j.at("spec_dir").get<std::string>();
  r.shape = j.at("shape").get<Bindings>();
  for (const auto& [k, b] : j.at("buckets").items()) r.buckets[k] = {b.at(0).get<std::int64_t>(), b.at(1).get<std::int64_t>()};
  r.scalars = j.at("scalars").get<std::map<std::string, double>>();
  r.reference = kernel_from_json(j.at("reference"));
  r.candidate = kernel_from_json(j.at("candidate"));
  r.check = j.at("check").get<bool>();
  r.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  r.hidden_seed = j.at("hidden_seed").get<std::uint64_t>();
  r.time = j.at("time").get<bool>();
  r.time_against_reference = j.at("time_against_reference").get<bool>();
  const auto& t = j.at("timing");
  r.timing = {t.at("warmup_runs").get<int>(),  t.at("warmup_ms").get<double>(), t.at("repeats").get<int>(),
              t.at("max_total_ms").get<double>(), t.at("max_spread").get<double>(), t.at("remeasures").get<int>()};
}

Verdict evaluate(Device& device, const EvaluationRequest& request, const StageListener& on_stage) {
  return Evaluation(device, request, on_stage).run();
}

}  // namespace hone
