// hone devices: what this machine offers hone. The cuda GPUs with the properties timing relies on
// (their copy bandwidth measured), or the one line that says why there are none; emu and none,
// which are always there; and what --device auto would pick.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/device_select.hpp"
#include "runtime/emu_device.hpp"
#include "runtime/nvrtc_compiler.hpp"

namespace hone::cli {

namespace {

struct DevicesArgs {
  bool json = false;
  bool measure = true;
};

std::string arch_range(const std::vector<std::string>& archs) {
  return archs.empty() ? "no architecture" : archs.front() + " to " + archs.back();
}

int run_devices(const DevicesArgs& a) {
  const auto archs = nvrtc_supported_archs();
  nlohmann::json cuda = {{"available", false}};
  const std::string why = cuda_unavailable_reason();
  Table gpus({"gpu", "name", "arch", "compiles for", "SMs", "L2 MiB", "memory GiB", "bandwidth GB/s (attributes)",
              "copy GB/s (measured)"});
  if (why.empty()) {
    cuda["available"] = true;
    cuda["driver"] = cuda_driver_version();
    cuda["devices"] = nlohmann::json::array();
    for (const CudaDeviceProperties& p : cuda_devices()) {
      double copy = 0;
      // Opening a device measures its copy bandwidth: the figure the impossible-speed check uses.
      if (a.measure) copy = make_cuda_device(p.ordinal)->info().copy_bandwidth_gbs;
      const std::string compile_arch = compile_arch_for(p.arch(), archs);
      const double attr_bw = theoretical_bandwidth_gbs(p.memory_clock_khz, p.bus_width_bits);
      cuda["devices"].push_back({{"ordinal", p.ordinal},
                                 {"name", p.name},
                                 {"arch", p.arch()},
                                 {"compile_arch", compile_arch},
                                 {"sm_count", p.sm_count},
                                 {"l2_bytes", p.l2_bytes},
                                 {"memory_bytes", p.memory_bytes},
                                 {"memory_bandwidth_gbs", attr_bw},
                                 {"copy_bandwidth_gbs", copy},
                                 {"peak_gflops_bound", peak_gflops_bound(p)},
                                 {"kernel_time_limit", p.kernel_time_limit}});
      gpus.add({std::to_string(p.ordinal), p.name, p.arch(), compile_arch + (compile_arch == p.arch() ? "" : " (PTX, JIT)"),
                std::to_string(p.sm_count), fmt::format("{:.0f}", p.l2_bytes / (1 << 20)),
                fmt::format("{:.0f}", p.memory_bytes / (1 << 30)), fmt::format("{:.0f}", attr_bw),
                a.measure ? fmt::format("{:.0f}", copy) : "-"});
    }
  } else {
    cuda["reason"] = why;
  }
  const std::string cpu = cpu_model_name();
  const std::string picked = why.empty() ? "cuda" : "emu";
  if (a.json) {
    std::cout << nlohmann::json{{"cuda", cuda},
                                {"emu", {{"available", true}, {"name", cpu}, {"timer", "cpu"}}},
                                {"none", {{"available", true}, {"archs", archs}, {"compiler", nvrtc_identity()}}},
                                {"auto", picked}}
                     .dump(2)
              << "\n";
    return 0;
  }
  if (why.empty())
    std::cout << "cuda: driver " << cuda["driver"].get<std::string>() << "\n" << gpus.str();
  else
    std::cout << "cuda: none here: " << why << "\n";
  std::cout << "emu: " << cpu << " (runs the CUDA C++ on the CPU; its times are CPU times, labelled cpu)\n";
  std::cout << "none: compile and static checks only, for " << arch_range(archs) << " (" << nvrtc_identity() << ")\n";
  std::cout << "--device auto picks " << picked << "\n";
  return 0;
}

}  // namespace

void add_devices_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<DevicesArgs>();
  auto* cmd = app.add_subcommand("devices", "List the devices hone can use here: cuda GPUs, emu, none");
  cmd->add_flag("--json", a->json, "one JSON object instead of the tables");
  cmd->add_flag("--measure,!--no-measure", a->measure, "measure each GPU's copy bandwidth (opens a context per GPU)")
      ->capture_default_str();
  cmd->callback([a, &action] { action = [a] { return run_devices(*a); }; });
}

}  // namespace hone::cli
