#include "validator/memory_need.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "validator/shared_operands.hpp"

namespace hone {

std::uint64_t evaluation_memory_bytes(const OpSpec& op, const Bindings& shape, const std::string& device_kind) {
  std::uint64_t host = 0, device = 0;
  for (const auto& a : op.args) {
    if (!a.pointer) continue;
    const auto bytes = static_cast<std::uint64_t>(a.elements(shape)) * dtype_size(a.dtype);
    const bool written = a.role == ArgRole::Out || a.role == ArgRole::InOut;
    host += bytes;
    if (written) host += 3 * bytes;  // the candidate's results, the reference's, and the first check's kept
    if (a.role == ArgRole::In && !a.addressed && SharedOperands().shares(bytes)) host += bytes;
    device += bytes;
  }
  return device_kind == "emu" ? host + device : host;
}

std::uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::string memory_shortfall(std::uint64_t need, std::uint64_t available, const std::string& device_kind) {
  if (device_kind == "none" || available == 0 || need <= available) return "";
  return fmt::format("an evaluation at this shape needs about {} of this machine's memory{}, and {} is available",
                     memory_words(static_cast<double>(need)),
                     device_kind == "emu" ? " (on emu the device's buffers are this machine's too)" : "",
                     memory_words(static_cast<double>(available)));
}

std::string memory_words(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.1f} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.0f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

}  // namespace hone
