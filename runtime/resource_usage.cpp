#include "runtime/resource_usage.hpp"

#include <regex>
#include <sstream>

namespace hone {

std::map<std::string, ResourceUsage> parse_ptxas_info(const std::string& log) {
  static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"(Function properties for (\S+))");
  static const std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex barriers_re(R"(used (\d+) barriers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");

  std::map<std::string, ResourceUsage> out;
  std::string entry;       // the entry being compiled: "Used ..." lines belong to it
  std::string properties;  // the function whose properties the next frame line describes
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry_re)) {
      entry = m[1];
      out[entry];
    } else if (std::regex_search(line, m, props_re)) {
      properties = m[1];
    } else if (std::regex_search(line, m, frame_re)) {
      // Only entries are reported; properties of called device functions are folded into
      // the entry by ptxas already.
      auto it = out.find(properties);
      if (it != out.end()) {
        it->second.stack_bytes = std::stoi(m[1]);
        it->second.spill_stores = std::stoi(m[2]);
        it->second.spill_loads = std::stoi(m[3]);
      }
    } else if (std::regex_search(line, m, used_re) && !entry.empty()) {
      ResourceUsage& u = out[entry];
      u.registers = std::stoi(m[1]);
      if (std::regex_search(line, m, barriers_re)) u.barriers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) u.shared_bytes = std::stoi(m[1]);
      if (std::regex_search(line, m, cmem_re)) u.const_bytes = std::stoi(m[1]);
    }
  }
  return out;
}

}  // namespace hone
