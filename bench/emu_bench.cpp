// hone-emu-bench: how fast the emu device compiles and runs real kernels. For each op family at
// a real model shape, one representative template configuration and the family's reference:
// compile time cold (a source the cache has not seen) and on a cache hit, the median time of one
// launch, and fiber switches per second during the launches.
//
//   hone-emu-bench [--runs N] [--op OP]   (HONE_EMU_THREADS sets the OS threads that run blocks;
//                                          --op measures one family only, e.g. under callgrind)
//
// Targets (issue #3): one launch of each under 1 s on 2 cores; a compile cache hit under 10 ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/paths.hpp"
#include "runtime/emu_compiler.hpp"
#include "runtime/emu_device.hpp"
#include "tuner/template_proposer.hpp"
#include "validator/kernel_args.hpp"

using namespace hone;

namespace {

struct Case {
  const char* op;
  Bindings shape;
};

// The shapes of Qwen3-8B / Qwen3-Next decode, 16 tokens where the op has tokens.
const std::vector<Case> kCases = {
    {"rmsnorm", {{"tokens", 16}, {"hidden", 4096}}},
    {"gemv", {{"M", 1}, {"N", 4096}, {"K", 4096}}},
    {"silu_mul", {{"tokens", 16}, {"inter", 12288}}},
    {"gdn_decode", {{"B", 4}, {"H", 16}, {"HV", 32}, {"K", 128}, {"V", 128}}},
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A comment no earlier run has compiled: the next compile cannot be a cache hit.
std::string nonce() {
  return "// bench " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
}

// The configuration in the middle of the family's space: neither the smallest nor the largest.
Candidate representative(const OpSpec& op, const Bindings& shape) {
  const auto space = template_space(op, shape);
  if (space.empty()) throw std::runtime_error(op.name + " has no valid configuration at this shape");
  const TemplatePoint& p = space[space.size() / 2];
  return render_template(op, *p.variant, p.config, shape);
}

struct Row {
  std::string kernel;
  double cold_ms = 0, hit_ms = 0, launch_ms = 0, switches_per_s = 0;
  bool ok = false;
  std::string error;
};

Row measure(Device& device, const OpSpec& op, const Candidate& c, const Bindings& shape, int runs) {
  Row row;
  row.kernel = c.label();
  const EmuCompileRequest cold{nonce() + c.source, c.entry, kernel_param_types(op), 900};
  const EmuBuild first = compile_for_emu(cold);
  if (!first.ok) {
    row.error = first.log;
    return row;
  }
  row.cold_ms = first.compile_ms;
  const EmuBuild hit = compile_for_emu(cold);
  row.hit_ms = hit.compile_ms;

  KernelImage image;
  image.entry = c.entry;
  image.emu_object = hit.shared_object;
  image.emu_invoke = hit.invoke_symbol;
  auto kernel = device.load(image);
  const auto host = generate_inputs(op, shape, 1);
  LaunchArgs args(device, op, shape, {}, host);
  const LaunchDims dims = c.launch.eval(shape);
  device.launch(*kernel, dims, args.argv());  // warm: stacks mapped, pages touched
  std::vector<double> times;
  const std::uint64_t switches_before = emu_fiber_switches();
  double total_ms = 0;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    device.launch(*kernel, dims, args.argv());
    times.push_back(ms_since(start));
    total_ms += times.back();
  }
  std::sort(times.begin(), times.end());
  row.launch_ms = times[times.size() / 2];
  row.switches_per_s = static_cast<double>(emu_fiber_switches() - switches_before) / (total_ms / 1000.0);
  row.ok = true;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--op") == 0 && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: hone-emu-bench [--runs N] [--op OP]\n");
      return 2;
    }
  }
  if (!only.empty() && std::none_of(kCases.begin(), kCases.end(), [&](const Case& c) { return only == c.op; })) {
    std::fprintf(stderr, "hone-emu-bench: --op %s: no such family in the bench\n", only.c_str());
    return 2;
  }
  auto device = make_emu_device("sm_90");
  const unsigned threads = start_emu_threads();
  std::printf("emu device: %s, %u OS threads run blocks; median of %d launches\n", device->info().name.c_str(), threads,
              runs);
  // The first compile with a cache precompiles the emulation prelude; every later one reuses it.
  const EmuBuild first = compile_for_emu({nonce() + "extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }\n", "k",
                                          {"float*"}, 900});
  std::printf("first compile in this cache (precompiles the prelude if it is not yet): %.1f ms\n\n", first.compile_ms);
  std::printf("%-11s %-48s %9s %9s %10s %14s\n", "op", "kernel", "cold ms", "hit ms", "launch ms", "switches/s");
  bool within_targets = true;
  for (const Case& c : kCases) {
    if (!only.empty() && only != c.op) continue;
    const OpSpec op = load_op(templates_root(), c.op);
    for (const Candidate& k : {reference_candidate(op), representative(op, c.shape)}) {
      const Row r = measure(*device, op, k, c.shape, runs);
      if (!r.ok) {
        std::printf("%-11s %-48s compile failed:\n%s\n", c.op, r.kernel.c_str(), r.error.c_str());
        within_targets = false;
        continue;
      }
      std::printf("%-11s %-48s %9.1f %9.2f %10.2f %14.3g\n", c.op, r.kernel.c_str(), r.cold_ms, r.hit_ms, r.launch_ms,
                  r.switches_per_s);
      within_targets &= r.launch_ms < 1000.0 && r.hit_ms < 10.0;
    }
  }
  std::printf("\ntargets (one launch < 1000 ms, cache hit < 10 ms): %s\n", within_targets ? "met" : "NOT met");
  return within_targets ? 0 : 1;
}
