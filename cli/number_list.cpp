#include "cli/number_list.hpp"

#include <sstream>

#include "core/input_error.hpp"

namespace hone::cli {

std::vector<std::int64_t> positive_integers(const std::string& text, const std::string& flag) {
  std::vector<std::int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < 1)
      throw InputError(flag + " '" + text + "': expected positive integers, comma-separated");
    out.push_back(v);
  }
  if (out.empty()) throw InputError(flag + ": expected at least one positive integer");
  return out;
}

}  // namespace hone::cli
