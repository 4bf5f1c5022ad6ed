#include "runtime/ptx_cluster.hpp"

#include <regex>

namespace hone {

std::array<unsigned, 3> ptx_cluster_dims(const std::string& ptx, const std::string& entry) {
  std::array<unsigned, 3> dims{1, 1, 1};
  const std::regex entry_line(R"(\.entry\s+)" + entry + R"(\s*\()");
  std::smatch at;
  if (!std::regex_search(ptx, at, entry_line)) return dims;
  // The directives stand between the parameter list and the body's '{'.
  const std::size_t from = static_cast<std::size_t>(at.position(0)), body = ptx.find('{', from);
  const std::string head = ptx.substr(from, body == std::string::npos ? std::string::npos : body - from);
  static const std::regex cluster(R"(\.reqnctapercluster\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?)");
  std::smatch m;
  if (!std::regex_search(head, m, cluster)) return dims;
  for (std::size_t i = 0; i < 3; ++i)
    if (m[i + 1].matched) dims[i] = static_cast<unsigned>(std::stoul(m[i + 1].str()));
  return dims;
}

}  // namespace hone
