#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "runtime/device_select.hpp"
#include "validator/candidate_validation.hpp"
#include "validator/memory_need.hpp"

namespace hone::cli {

namespace {

struct CheckArgs {
  std::string op, source, entry, grid, block, smem = "0", shape, device = "auto";
  double timeout_s = 0;
  bool json = false;
};

int run_check(const CheckArgs& a) {
  OpSpec op = load_op(templates_root(), a.op);
  Bindings shape = parse_shape_text(a.shape);
  op.check_shape(shape);

  Candidate c;
  c.op = op.name;
  c.origin = "user";  // written by hand or elsewhere: held to the untrusted-source allow-list
  c.entry = a.entry;
  c.source = read_text_file(a.source);
  try {
    c.launch.grid = parse_dim_list(a.grid);
    c.launch.block = parse_dim_list(a.block);
    c.launch.smem = Expr::parse(a.smem);
  } catch (const ExprError& e) {
    throw InputError(std::string("--grid/--block/--smem: ") + e.what());
  }
  for (const auto* dims : {&c.launch.grid, &c.launch.block})
    for (const auto& e : *dims)
      for (const auto& s : e.symbols())
        if (!shape.count(s)) throw InputError("'" + e.text() + "' uses '" + s + "', which is not a shape symbol of " + op.name);
  for (const auto& s : c.launch.smem.symbols())
    if (!shape.count(s)) throw InputError("--smem uses '" + s + "', which is not a shape symbol of " + op.name);

  if (a.timeout_s < 0) throw InputError("--timeout must not be negative");
  ValidationOptions options;
  options.device_kind = a.device == "none" ? "none" : choose_device(a.device).kind;
  options.timeout_s = a.timeout_s;
  if (const std::string why = memory_shortfall(evaluation_memory_bytes(op, shape, options.device_kind), available_memory_bytes(),
                                               options.device_kind);
      !why.empty())
    throw InputError("--shape " + a.shape + ": cannot be checked on this machine: " + why);
  std::unique_ptr<Worker> worker;
  if (options.device_kind != "none")
    worker = std::make_unique<Worker>(
        WorkerOptions{options.device_kind, options.arch, evaluation_timeout_s(a.timeout_s), {}});
  Verdict v = validate_candidate(op, c, shape, options, worker.get());

  if (a.json) {
    std::cout << nlohmann::json(v).dump(2) << "\n";
  } else if (v.pass) {
    if (v.detail.contains("reference_itself"))
      std::cout << fmt::format("accepted: {} ran on {}: {}", a.entry, options.device_kind, v.detail["reference_itself"].get<std::string>());
    else
      std::cout << fmt::format("accepted: {} passed every stage on {}", a.entry, options.device_kind);
    if (v.timing.runs > 0) std::cout << fmt::format(", {:.4f} ms median ({})", v.timing.median_ms, v.timing.timer);
    std::cout << "\n";
  } else {
    std::cout << fmt::format("rejected at the {} stage: {}\n", v.stage, v.reason);
  }
  return v.pass ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "Validate a kernel written by hand or elsewhere against an op's contract: "
                                          "static checks, reference, hidden tests, consistency and timing");
  cmd->add_option("--op", a->op, "op family whose contract the kernel implements")->required();
  cmd->add_option("--source", a->source, "CUDA C++ file")->required();
  cmd->add_option("--entry", a->entry, "the extern \"C\" __global__ function")->required();
  cmd->add_option("--grid", a->grid, "grid as \"E,E,E\": integer expressions of the shape symbols")->required();
  cmd->add_option("--block", a->block, "block as \"E,E,E\"")->required();
  cmd->add_option("--smem", a->smem, "dynamic shared memory in bytes, an expression")->capture_default_str();
  cmd->add_option("--shape", a->shape, "every shape symbol, e.g. tokens=7,hidden=4096")->required();
  cmd->add_option("--device", a->device, "auto, emu, cuda or none (static checks only)")->capture_default_str();
  cmd->add_option("--timeout", a->timeout_s,
                  "seconds a launch may take before it counts as a hang (default: 100 times the reference's launch on this "
                  "device, at least 5 s)");
  cmd->add_flag("--json", a->json, "print the verdict as JSON");
  cmd->callback([a, &action] { action = [a] { return run_check(*a); }; });
}

}  // namespace hone::cli
