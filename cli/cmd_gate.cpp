#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/json_file.hpp"
#include "core/shard.hpp"
#include "gate/cache_gate.hpp"
#include "gate/gate_output.hpp"

namespace hone::cli {

namespace {

struct GateArgs {
  GateOptions options;
  std::string junit, markdown, shard = "0/1";
};

int run_gate_command(GateArgs a) {
  a.options.shard = parse_shard(a.shard);
  const GateReport report = run_gate(a.options, [](const std::string& line) { std::cerr << "gate: " << line << "\n"; });
  const std::string md = gate_markdown(report);
  std::cout << md;
  if (!a.junit.empty()) write_file_atomically(a.junit, gate_junit(report));
  if (!a.markdown.empty()) write_file_atomically(a.markdown, md);
  return report.pass() ? 0 : 1;
}

}  // namespace

void add_gate_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<GateArgs>();
  auto* cmd = app.add_subcommand("gate", "CI gate: validate every kernel of a cache again on this device, compare its resources and "
                                         "time with the recorded ones; exit 0 pass, 1 fail");
  cmd->add_option("--cache", a->options.cache, "kernel cache directory (hone export)")->required();
  cmd->add_option("--baseline", a->options.baseline, "kernel cache to re-time as the baseline (default: the times recorded in --cache)");
  cmd->add_option("--device", a->options.device, "auto, emu, cuda or none (static checks and resources only)")
      ->check(CLI::IsMember({"auto", "emu", "cuda", "none"}))
      ->capture_default_str();
  cmd->add_option("--max-regression", a->options.max_regression_pct, "allowed slowdown in percent, beyond the noise")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--timeout", a->options.timeout_s,
                  "seconds a launch may take before it counts as a hang (default: 100 times the reference's launch, at least 5 s)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--accept-other-compiler", a->options.accept_other_compiler,
                "pass entries whose binaries this NVRTC cannot prove to be what their source compiles to (another NVRTC version "
                "or build compiled the cache)");
  cmd->add_option("--shard", a->shard, "i/n: check every n-th entry of the cache from the i-th (n CI jobs in parallel)")
      ->capture_default_str();
  cmd->add_option("--junit", a->junit, "write JUnit XML here");
  cmd->add_option("--markdown", a->markdown, "write the Markdown summary here too (it always goes to stdout)");
  cmd->callback([a, &action] { action = [a] { return run_gate_command(*a); }; });
}

}  // namespace hone::cli
