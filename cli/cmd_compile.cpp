#include <algorithm>
#include <iostream>
#include <thread>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/input_error.hpp"
#include "core/paths.hpp"
#include "runtime/nvrtc_compiler.hpp"
#include "tuner/template_proposer.hpp"

namespace hone::cli {

namespace {

struct CompileOptions {
  std::string op, shape, arch = "sm_90";
  bool json = false;
};

int run_compile(const CompileOptions& o) {
  OpSpec op = load_op(templates_root(), o.op);
  Bindings shape = parse_shape_text(o.shape);
  op.check_shape(shape);
  try {
    arch_number(o.arch);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--arch: ") + e.what());
  }
  const auto archs = nvrtc_supported_archs();
  if (std::find(archs.begin(), archs.end(), "sm_" + std::to_string(arch_number(o.arch))) == archs.end())
    throw InputError("--arch: " + nvrtc_identity() + " cannot target " + o.arch);

  const auto space = template_space(op, shape, o.arch);
  if (space.empty()) throw InputError(o.op + " has no valid configuration at " + o.shape);
  std::vector<Candidate> candidates;
  for (const auto& p : space) candidates.push_back(render_template(op, *p.variant, p.config, shape));
  std::vector<NvrtcResult> results(candidates.size());
  {
    boost::asio::thread_pool pool(std::max(1u, std::thread::hardware_concurrency()));
    for (std::size_t i = 0; i < candidates.size(); ++i)
      boost::asio::post(pool, [&, i] { results[i] = nvrtc_compile({candidates[i].source, candidates[i].entry + ".cu", o.arch, {}}); });
    pool.join();
  }

  int failures = 0;
  nlohmann::json rows = nlohmann::json::array();
  Table t({"variant", "params", "registers", "spill st/ld", "smem", "stack", "compile ms", "status"});
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const NvrtcResult& r = results[i];
    const auto it = r.usage.find(c.entry);
    const bool ok = r.ok && it != r.usage.end();
    failures += !ok;
    const ResourceUsage u = ok ? it->second : ResourceUsage{};
    rows.push_back({{"variant", c.variant},
                    {"params", c.params},
                    {"entry", c.entry},
                    {"ok", ok},
                    {"registers", u.registers},
                    {"spill_stores", u.spill_stores},
                    {"spill_loads", u.spill_loads},
                    {"shared_bytes", u.shared_bytes},
                    {"stack_bytes", u.stack_bytes},
                    {"compile_ms", r.compile_ms},
                    {"log", ok ? "" : r.log}});
    t.add({c.variant, config_to_string(c.params), ok ? std::to_string(u.registers) : "-",
           ok ? fmt::format("{}/{}", u.spill_stores, u.spill_loads) : "-", ok ? std::to_string(u.shared_bytes) : "-",
           ok ? std::to_string(u.stack_bytes) : "-", fmt::format("{:.0f}", r.compile_ms),
           ok ? "ok" : "error: " + r.log.substr(0, r.log.find('\n'))});
  }
  if (o.json) {
    std::cout << nlohmann::json{{"op", op.name}, {"shape", shape}, {"arch", o.arch}, {"compiler", nvrtc_identity()}, {"configs", rows}}.dump(2)
              << "\n";
  } else {
    std::cout << fmt::format("{} at {} for {} ({}): {} configurations\n\n", op.signature(), o.shape, o.arch,
                             nvrtc_identity(), candidates.size())
              << t.str();
  }
  return failures ? 1 : 0;
}

}  // namespace

void add_compile_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<CompileOptions>();
  auto* cmd = app.add_subcommand("compile", "Compile every valid configuration of an op's templates at a shape with NVRTC "
                                            "and print the resource usage ptxas reports");
  cmd->add_option("--op", o->op, "op family, e.g. gemv")->required();
  cmd->add_option("--shape", o->shape, "every shape symbol, e.g. M=1,N=4096,K=4096")->required();
  cmd->add_option("--arch", o->arch, "target architecture")->capture_default_str();
  cmd->add_flag("--json", o->json, "print JSON instead of a table");
  cmd->callback([o, &action] { action = [o] { return run_compile(*o); }; });
}

}  // namespace hone::cli
